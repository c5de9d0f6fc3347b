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
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() };
      received.push(delivery);
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
    accepted: () => [...accepted],
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(accepted)) {
        if (Date.now() > deadline) throw new Error(`the receiver did not get the expected deliveries in ${timeoutMs} ms (got ${accepted.length})`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return [...accepted];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
