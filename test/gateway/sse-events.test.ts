/**
 * Reading a provider's text/event-stream body (gateway/src/upstream/sse-events.ts, from its build),
 * at the edges a relayed stream meets: events split across chunks and several in one, an event
 * cut off by the end, an error after some events, a stream destroyed without an error, and a
 * reader that stops (the stream is destroyed). Whole relayed streams, over
 * HTTP through the official SDKs, are in forwarding-streams.test.ts.
 */
import { PassThrough, Readable } from "node:stream";
import { serverSentEvents, type ServerSentEvent } from "@gateway-keys/gateway/dist/upstream/sse-events";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function readAll(events: AsyncIterable<ServerSentEvent>): Promise<ServerSentEvent[]> {
  const read: ServerSentEvent[] = [];
  for await (const event of events) read.push(event);
  return read;
}

test("events split across chunks and several in one chunk are read in order; an event the end cut off is not an event", async () => {
  const body = Readable.from([Buffer.from('event: a\ndata: {"n":'), Buffer.from('1}\n\ndata: 2\n\ndata: 3\n\n'), Buffer.from("data: [DONE]")], { objectMode: false });
  // The SSE standard: a stream that ends before an event's blank line drops that event, as the
  // client's own parser would; a relay then sees no end event and reports the stream as cut.
  expect(await readAll(serverSentEvents(body))).toEqual([
    { event: "a", data: '{"n":1}' },
    { event: undefined, data: "2" },
    { event: undefined, data: "3" },
  ]);
});

test("a character split between two chunks is decoded whole", async () => {
  const bytes = Buffer.from("data: naïve ☃\n\n");
  const cut = bytes.indexOf(0xe2) + 1;
  const body = Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)], { objectMode: false });
  expect(await readAll(serverSentEvents(body))).toEqual([{ event: undefined, data: "naïve ☃" }]);
});

test("an error reaches the reader after the events that came before it", async () => {
  const body = new PassThrough();
  const events = serverSentEvents(body)[Symbol.asyncIterator]();
  body.write("data: 1\n\n");
  await expect(events.next()).resolves.toEqual({ value: { event: undefined, data: "1" }, done: false });
  body.write("data: 2\n\n");
  await expect(events.next()).resolves.toEqual({ value: { event: undefined, data: "2" }, done: false });
  body.destroy(new Error("connection reset"));
  await expect(events.next()).rejects.toThrow("connection reset");
});

test("a stream destroyed without an error is a failure, not an end: the reader hears an error", async () => {
  const body = new PassThrough();
  const events = serverSentEvents(body)[Symbol.asyncIterator]();
  body.write("data: only\n\n");
  await expect(events.next()).resolves.toEqual({ value: { event: undefined, data: "only" }, done: false });
  const next = events.next();
  body.destroy();
  await expect(next).rejects.toThrow();
});

test("a reader that stops destroys the stream: the provider's answer ends", async () => {
  const body = new PassThrough();
  const events = serverSentEvents(body)[Symbol.asyncIterator]();
  body.write("data: 1\n\n");
  expect((await events.next()).value).toEqual({ event: undefined, data: "1" });
  await events.return!();
  expect(body.destroyed).toBe(true);
});

test("a body that is not a Node stream is read as chunks", async () => {
  async function* chunks() {
    yield Buffer.from("data: a\n\nda");
    yield "ta: b\n\n";
  }
  expect(await readAll(serverSentEvents(chunks()))).toEqual([
    { event: undefined, data: "a" },
    { event: undefined, data: "b" },
  ]);
});
