import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** An admin listener serving `GET /metrics` only. */
export interface MetricsListener {
  /** e.g. `http://127.0.0.1:9464`; scrape `${url}/metrics`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the registry's metrics on a port of their own, apart from the public listener, so that
 * exposing the gateway never exposes its metrics by accident. One route, no framework: anything
 * but `GET /metrics` is a 404.
 */
export async function listenForMetrics(registry: Registry, port: number, host: string): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Only GET /metrics is served here.\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(request.method === "HEAD" ? undefined : text),
      () => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("The metrics could not be collected.\n"),
    );
  });
  // Scrapers keep connections open; a close must not wait for them.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
