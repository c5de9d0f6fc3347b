import net from "node:net";

/** A request as the proxy saw it go by. */
export interface SeenRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

/** One request and the gateway's full answer to it, and whether the client ever got that answer. */
export interface Exchange {
  request: SeenRequest;
  response: { status: number; headers: Record<string, string>; body: string };
  /** True when the proxy reset the client's connection instead of forwarding the answer. */
  reset: boolean;
}

/**
 * A TCP proxy on loopback between the SDK and a real gateway that loses answers on purpose. For an
 * armed request it forwards the request, waits for the gateway's complete answer (so the gateway
 * has committed whatever the request did), then resets the client's connection instead of
 * forwarding it: the "undetermined network outcome" that idempotency keys exist for.
 *
 * It parses just enough HTTP/1.1 to find message boundaries (Content-Length and chunked bodies);
 * everything it forwards is the original bytes.
 */
export class FaultProxy {
  /** Every exchange, in the order the answers arrived. */
  readonly exchanges: Exchange[] = [];
  /** Base URL to give the client instead of the gateway's. */
  readonly url: string;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #armed: { match: (request: SeenRequest) => boolean; remaining: number } | undefined;

  private constructor(server: net.Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  /** Starts a proxy in front of the gateway at `targetUrl` (http://127.0.0.1:port). */
  static async start(targetUrl: string): Promise<FaultProxy> {
    const target = new URL(targetUrl);
    let proxy!: FaultProxy;
    const server = net.createServer((client) => proxy.#connect(client, target.hostname, Number(target.port)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    proxy = new FaultProxy(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  /** Loses the answers to the next `count` requests that `match` accepts. */
  resetAfterResponse(match: (request: SeenRequest) => boolean, count = 1): void {
    this.#armed = { match, remaining: count };
  }

  /** Armed resets that have not happened yet. */
  get pendingResets(): number {
    return this.#armed?.remaining ?? 0;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #connect(client: net.Socket, host: string, port: number): void {
    const upstream = net.connect(port, host);
    this.#sockets.add(client).add(upstream);
    // Requests waiting for their answers on this connection, oldest first (HTTP/1.1 answers in order).
    const waiting: { request: SeenRequest; doomed: boolean }[] = [];
    const requests = new MessageReader("request", (head) => {
      const request = parseRequestHead(head);
      const doomed = this.#takeArmed(request);
      waiting.push({ request, doomed });
    });
    const responses = new MessageReader("response", (head, raw) => {
      const next = waiting.shift();
      if (!next) throw new Error("fault proxy: an answer arrived for no request");
      const response = parseResponseHead(head, raw);
      this.exchanges.push({ request: next.request, response, reset: next.doomed });
      if (next.doomed) {
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(raw);
    });
    client.on("data", (chunk: Buffer) => {
      requests.push(chunk);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => responses.push(chunk));
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on("close", closeBoth).on("error", closeBoth);
    upstream.on("close", closeBoth).on("error", closeBoth);
  }

  #takeArmed(request: SeenRequest): boolean {
    const armed = this.#armed;
    if (!armed || armed.remaining === 0 || !armed.match(request)) return false;
    armed.remaining -= 1;
    return true;
  }
}

/**
 * Splits a byte stream into complete HTTP messages. Calls `onMessage` when a message's head (for
 * requests) or the whole message (for responses, which the proxy holds back until complete) is in.
 */
class MessageReader {
  #buffer = Buffer.alloc(0);
  readonly kind: "request" | "response";
  readonly onMessage: (head: string, raw: Buffer) => void;

  constructor(kind: "request" | "response", onMessage: (head: string, raw: Buffer) => void) {
    this.kind = kind;
    this.onMessage = onMessage;
  }

  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const end = this.#buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = this.#buffer.subarray(0, end).toString("latin1");
      const bodyStart = end + 4;
      const bodyLength = this.#bodyLength(head, bodyStart);
      if (bodyLength === undefined) return; // wait for more bytes
      const total = bodyStart + bodyLength;
      const raw = this.#buffer.subarray(0, total);
      this.#buffer = this.#buffer.subarray(total);
      this.onMessage(head, Buffer.from(raw));
    }
  }

  /** Length of the body after `bodyStart`, or undefined while it is not all here. */
  #bodyLength(head: string, bodyStart: number): number | undefined {
    const headers = headerMap(head);
    if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) return this.#chunkedLength(bodyStart);
    const length = Number(headers["content-length"] ?? 0);
    if (this.kind === "response" && /^HTTP\/1\.1 (1\d\d|204|304)/.test(head)) return 0;
    return this.#buffer.length - bodyStart >= length ? length : undefined;
  }

  #chunkedLength(bodyStart: number): number | undefined {
    let at = bodyStart;
    for (;;) {
      const lineEnd = this.#buffer.indexOf("\r\n", at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(this.#buffer.subarray(at, lineEnd).toString("latin1"), 16);
      if (size === 0) {
        const trailerEnd = this.#buffer.indexOf("\r\n\r\n", lineEnd);
        return trailerEnd < 0 ? undefined : trailerEnd + 4 - bodyStart;
      }
      at = lineEnd + 2 + size + 2;
      if (at > this.#buffer.length) return undefined;
    }
  }
}

function headerMap(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function parseRequestHead(head: string): SeenRequest {
  const [method = "", path = ""] = (head.split("\r\n")[0] ?? "").split(" ");
  return { method, path, headers: headerMap(head) };
}

function parseResponseHead(head: string, raw: Buffer): Exchange["response"] {
  const status = Number((head.split("\r\n")[0] ?? "").split(" ")[1]);
  const headers = headerMap(head);
  const rawBody = raw.subarray(Buffer.byteLength(head, "latin1") + 4);
  const body = headers["transfer-encoding"]?.includes("chunked") ? dechunk(rawBody) : rawBody.toString("utf8");
  return { status, headers, body };
}

function dechunk(raw: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at);
    const size = parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts).toString("utf8");
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
