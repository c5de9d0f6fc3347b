import type { Server } from "node:http";

/**
 * Whether the gateway is still taking work, and how many requests it is answering. Once
 * draining, `GET /readyz` answers 503, and each connection is closed as soon as its request
 * ends: Node's `server.close()` closes only the connections idle at that moment, so a keep-alive
 * connection that finishes a stream afterwards would otherwise hold the close open until its
 * keep-alive timeout (72 s in Fastify).
 */
export class ServingState {
  #draining = false;
  #inFlight = 0;
  #server: Server | undefined;

  /** True from the start of a shutdown. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Requests (streams included) being answered now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Starts draining `server`: not ready from now on, and connections close as their requests end. */
  beginDraining(server: Server): void {
    this.#draining = true;
    this.#server = server;
  }

  requestStarted(): void {
    this.#inFlight++;
  }

  requestEnded(): void {
    this.#inFlight--;
    const server = this.#server;
    // After the response's own bookkeeping, when its connection counts as idle.
    if (server) setImmediate(() => server.closeIdleConnections());
  }
}
