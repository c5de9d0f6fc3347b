/**
 * Relayed streams under stress: a client that goes away stops the provider at once, and a client
 * that reads slowly slows the provider down (backpressure) instead of the gateway buffering the
 * provider's whole stream.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { eventText } from "@gateway-keys/testkit/scripted-provider";
import { clientsOf, useForwarding } from "./forwarding-support";

const forwarding = useForwarding();

const chunk = (content: string) => ({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [{ index: 0, delta: { content }, finish_reason: null }] });

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

test("a client that aborts a relayed stream closes the provider's request at once, and is charged the reservation", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  // A provider that would stream for 20 s.
  provider.answer(() => ({ events: Array.from({ length: 1000 }, (_, index) => ({ data: chunk(`t${index} `) })), gapMs: 20, end: false }));
  const abort = new AbortController();
  const stream = await client.openai.chat.completions.create({ model: "gpt", max_tokens: 10, messages: [{ role: "user", content: "abc def" }], stream: true }, { signal: abort.signal });
  let pieces = 0;
  const reading = (async () => {
    for await (const _ of stream) if (++pieces === 3) abort.abort();
  })().catch(() => undefined);
  await reading;
  const abortedAt = Date.now();
  await within(provider.received[0]!.closed, 1000, "the provider's request closing");

  expect(pieces).toBe(3);
  expect(Date.now() - abortedAt).toBeLessThan(1000);
  // "abc def" is 3 tokens by the gateway's count (2 words and the space-free rule), bound 10 at 2 credits.
  await within(
    (async () => {
      while ((await client.spentUnits()) === "0") await new Promise((resolve) => setTimeout(resolve, 20));
    })(),
    2000,
    "the charge",
  );
  expect(await client.spentUnits()).toBe("22");
});

test("a client that does not read holds the provider back: the gateway does not buffer the provider's stream", async () => {
  const { provider, gateway } = forwarding();
  const client = await clientsOf(forwarding());
  const event = eventText({ data: chunk("x".repeat(1000)) });
  const total = 64 * 1024 * 1024;
  const writes = { bytes: 0, blockedAt: -1, done: false };
  provider.answer(() => ({
    handle: (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const pump = () => {
        while (writes.bytes < total) {
          writes.bytes += event.length;
          if (!response.write(event)) {
            if (writes.blockedAt < 0) writes.blockedAt = writes.bytes;
            response.once("drain", pump);
            return;
          }
        }
        writes.done = true;
        response.end(eventText({ data: "[DONE]" }));
      };
      pump();
    },
  }));

  // A raw client that sends the request and then does not read its answer.
  const answer = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = httpRequest(`${gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      agent: false,
      headers: { authorization: `Bearer ${client.secret}`, "content-type": "application/json" },
    });
    outgoing.on("response", resolve).on("error", reject);
    outgoing.end(JSON.stringify({ model: "gpt", messages: [{ role: "user", content: "hi" }], stream: true }));
  });
  answer.pause();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const heldAt = writes.bytes;

  expect(writes.done).toBe(false);
  expect(heldAt).toBeLessThan(total / 2);

  // Reading on lets the provider finish, and every byte arrives.
  let received = 0;
  answer.on("data", (piece: Buffer) => (received += piece.length));
  answer.resume();
  await within(new Promise((resolve) => answer.on("end", resolve)), 60_000, "the end of the stream");
  expect(writes.done).toBe(true);
  expect(received).toBe(writes.bytes + eventText({ data: "[DONE]" }).length);
  console.log(`backpressure: the provider was held after ${(heldAt / 1024 / 1024).toFixed(1)} MiB of ${total / 1024 / 1024} MiB while the client did not read`);
});
