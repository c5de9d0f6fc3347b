import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request that went through the recorder. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
}

/**
 * A loopback HTTP proxy in front of a gateway that records every request it forwards, so tests can
 * assert exactly which calls a Pulumi operation made (e.g. "one PATCH, nothing else").
 */
export interface RequestRecorder {
  /** Point clients here instead of at the gateway. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Forgets what was recorded so far. */
  reset(): void;
  /** Requests recorded so far as `METHOD /path` lines with the key id replaced by `{id}`. */
  calls(): string[];
  close(): Promise<void>;
}

export async function startRequestRecorder(targetBaseUrl: string): Promise<RequestRecorder> {
  const target = new URL(targetBaseUrl);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    requests.push({ method: incoming.method ?? "GET", path: (incoming.url ?? "/").split("?")[0]! });
    const upstream = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    reset: () => void requests.splice(0),
    calls: () => requests.map((r) => `${r.method} ${r.path.replace(/key_[A-Za-z0-9]+/g, "{id}")}`),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
