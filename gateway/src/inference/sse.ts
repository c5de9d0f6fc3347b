import type { OutgoingHttpHeaders } from "node:http";
import type { FastifyReply } from "fastify";

/**
 * Server-sent events on a reply, as the official SDKs parse them: `event:` (when named) and one
 * `data:` line of JSON per event, a blank line after each. Writing starts the 200 answer, so
 * everything that could refuse the request (auth, validation, policies, the spend reservation)
 * must have run before the first event.
 */
export class SseStream {
  readonly #reply: FastifyReply;
  #started = false;
  #closedByClient = false;
  readonly #abort = new AbortController();

  constructor(reply: FastifyReply) {
    this.#reply = reply;
    reply.raw.on("close", () => {
      if (!reply.raw.writableEnded) {
        this.#closedByClient = true;
        this.#abort.abort();
      }
    });
  }

  /** A signal aborted when the client goes away before its (whole) answer is written: a provider request stops with it. */
  static clientGone(reply: FastifyReply): AbortSignal {
    const abort = new AbortController();
    reply.raw.on("close", () => {
      if (!reply.raw.writableEnded) abort.abort();
    });
    return abort.signal;
  }

  /** Aborted when the client goes away before the stream ends: stop generating. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the client went away before the end. */
  get cut(): boolean {
    return this.#closedByClient;
  }

  /** Writes one event; `name` is the `event:` line (the Anthropic and Responses wires need it). */
  send(data: unknown, name?: string): void {
    this.#start();
    if (this.#closedByClient) return;
    this.#reply.raw.write(`${name === undefined ? "" : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`);
  }

  /** Writes a `data:` line that is not JSON (the Chat Completions wire ends with `data: [DONE]`). */
  sendRaw(data: string): void {
    this.#start();
    if (!this.#closedByClient) this.#reply.raw.write(`data: ${data}\n\n`);
  }

  /**
   * Writes an event as a provider sent it (a relayed stream). Returns false once the client's
   * socket buffer is full: wait for {@link drained} before reading more from the provider.
   */
  sendEvent(name: string | undefined, data: string): boolean {
    this.#start();
    if (this.#closedByClient) return true;
    const lines = data.includes("\n") ? data.split("\n").map((line) => `data: ${line}`).join("\n") : `data: ${data}`;
    return this.#reply.raw.write(`${name === undefined ? "" : `event: ${name}\n`}${lines}\n\n`);
  }

  /** Resolves once the client's socket has taken what was written (or the client left). */
  drained(): Promise<void> {
    const socket = this.#reply.raw;
    if (!socket.writableNeedDrain || this.#closedByClient) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        socket.off("drain", done);
        socket.off("close", done);
        resolve();
      };
      socket.on("drain", done);
      socket.on("close", done);
    });
  }

  end(): void {
    this.#start();
    this.#reply.raw.end();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    // The reply is ours from here: Fastify must not also answer it.
    this.#reply.hijack();
    this.#reply.raw.writeHead(200, {
      // Headers set before the stream began (the key's x-ratelimit-* figures) go with it.
      ...(this.#reply.getHeaders() as OutgoingHttpHeaders),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
  }
}
