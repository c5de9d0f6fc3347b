/**
 * A model provider tests script: a real HTTP server on 127.0.0.1 that records every request it
 * receives (path, headers, body) and answers as the test says — JSON, an event stream, an error
 * with headers, or by hand. It is the boundary a gateway forwards to: tests assert what crossed it.
 *
 *   const provider = await startScriptedProvider();
 *   provider.answer(() => ({ json: { choices: [...] } }));
 *   // … a request through the gateway …
 *   expect(provider.received[0]!.body).toEqual({ ... });
 *
 * Only erasable TypeScript, so the benchmarks can run it under Node's type stripping.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request the provider received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  /** The query string's parameters (e.g. Azure's `api-version`). */
  query: Record<string, string>;
  /** The request target as sent: the path as encoded, with its query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON when it was JSON, else its text. */
  body: unknown;
  /** The body's bytes as received (what a signature covers). */
  rawBody: Buffer;
  /** Resolves when the gateway closed this request's connection or the answer ended. */
  closed: Promise<void>;
}

/** One server-sent event to send: `data` is written as JSON unless it is a string. */
export interface ScriptedEvent {
  event?: string;
  data: unknown;
}

/** How the provider answers one request. */
export type Script =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; headers?: Record<string, string> }
  | { events: ScriptedEvent[]; headers?: Record<string, string>; gapMs?: number; end?: boolean }
  | { handle: (request: ReceivedRequest, response: ServerResponse, raw: IncomingMessage) => void };

export interface ScriptedProvider {
  /** e.g. `http://127.0.0.1:41234`, no trailing slash. */
  origin: string;
  /** Every request received so far, in order. */
  received: ReceivedRequest[];
  /** Sets how every following request is answered (the default: 500). */
  answer(script: (request: ReceivedRequest) => Script): void;
  close(): Promise<void>;
}

/** The text of one event as a provider writes it. */
export function eventText(event: ScriptedEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${data}\n\n`;
}

async function writeEvents(response: ServerResponse, script: Extract<Script, { events: unknown }>): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", ...script.headers });
  for (const event of script.events) {
    if (response.destroyed) return;
    response.write(eventText(event));
    if (script.gapMs) await new Promise((resolve) => setTimeout(resolve, script.gapMs));
  }
  if (script.end !== false) response.end();
}

/**
 * Options of a provider that checks requests as a real one does: `gate` answers a request it
 * refuses (a wrong credential, a missing parameter) before the test's script sees it, and lets
 * the rest through with `undefined`. Refused requests are recorded too.
 */
export interface ScriptedProviderOptions {
  gate?: (request: ReceivedRequest) => Script | undefined;
}

export async function startScriptedProvider(options: ScriptedProviderOptions = {}): Promise<ScriptedProvider> {
  const received: ReceivedRequest[] = [];
  let script: (request: ReceivedRequest) => Script = () => ({ status: 500, json: { error: { message: "no script" } } });
  const sockets = new Set<Socket>();
  const server: Server = createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const text = rawBody.toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a multipart form): kept as text.
      }
      const closed = new Promise<void>((resolve) => response.on("close", () => resolve()));
      const url = new URL(raw.url ?? "/", "http://scripted");
      const request: ReceivedRequest = { method: raw.method ?? "GET", path: url.pathname, url: raw.url ?? "/", query: Object.fromEntries(url.searchParams), headers: raw.headers, body, rawBody, closed };
      received.push(request);
      const chosen = options.gate?.(request) ?? script(request);
      if ("handle" in chosen) return chosen.handle(request, response, raw);
      if ("events" in chosen) return void writeEvents(response, chosen);
      const isJson = "json" in chosen;
      response.writeHead(chosen.status ?? 200, { "content-type": isJson ? "application/json" : "text/plain", ...chosen.headers });
      response.end(isJson ? JSON.stringify(chosen.json) : chosen.text);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (next) => {
      script = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
