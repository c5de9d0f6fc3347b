/** A real HTTP receiver of webhooks on loopback, for the webhook tests: it records every delivery and can fail on purpose. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, failed ones included, in arrival order. */
  received: ReceivedDelivery[];
  /** Answers 500 to the next `count` requests. */
  failNext(count: number): void;
  /** Never answers the next `count` requests (a delivery stuck in flight); resolves `held` once the first arrives. */
  holdNext(count: number): void;
  /** Resolves when a held request has arrived. */
  held(): Promise<void>;
  /** Resolves once `predicate` holds for the deliveries answered 2xx, or rejects after `timeoutMs`. */
  waitFor(predicate: (accepted: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  /** Deliveries answered 2xx. */
  accepted(): ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const accepted: ReceivedDelivery[] = [];
  let failures = 0;
  let holds = 0;
  let heldArrived: () => void = () => undefined;
  let heldPromise = new Promise<void>((resolve) => (heldArrived = resolve));
  const heldSockets: { destroy(): void }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() };
      received.push(delivery);
      if (holds > 0) {
        holds -= 1;
        heldSockets.push(request.socket);
        heldArrived();
        return;
      }
      if (failures > 0) {
        failures -= 1;
        response.writeHead(500).end("failing on purpose");
        return;
      }
      accepted.push(delivery);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    failNext: (count) => void (failures = count),
    holdNext: (count) => {
      holds = count;
      heldPromise = new Promise<void>((resolve) => (heldArrived = resolve));
    },
    held: () => heldPromise,
    accepted: () => [...accepted],
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(accepted)) {
        if (Date.now() > deadline) throw new Error(`the receiver did not get the expected deliveries in ${timeoutMs} ms (got ${accepted.length})`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return [...accepted];
    },
    close: () => {
      for (const socket of heldSockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
