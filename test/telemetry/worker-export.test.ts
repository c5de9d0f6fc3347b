/**
 * The gateway's tracer provider exports from a worker thread (gateway/src/telemetry/worker-span-processor.ts):
 * spans made on the calling thread reach an OTLP/HTTP receiver, a shutdown sends what is still
 * held, and spans that cannot be kept or sent are counted with their reason. The receiver here is
 * a plain HTTP server that keeps each protobuf body; a span's name and its trace id's bytes are
 * found in it as they are written on the wire (test/telemetry/traces.test.ts reads whole traces
 * back from a real Jaeger).
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind, type Span } from "@opentelemetry/api";
import { otlpTracerProvider } from "@gateway-keys/gateway/dist/telemetry/otlp-export";
import { freePort } from "@gateway-keys/testkit/free-port";

type TracerProvider = ReturnType<typeof otlpTracerProvider>;

interface Receiver {
  endpoint: string;
  bodies: { path: string; contentType: string | undefined; body: Buffer }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: Receiver["bodies"] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push({ path: request.url ?? "", contentType: request.headers["content-type"], body: Buffer.concat(chunks) });
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

type Dropped = { count: number; reason: string }[];

/** Every provider a test made, shut down after it (its worker and the exporter's connections). */
const made: TracerProvider[] = [];

function providerFor(endpoint: string, env: Record<string, string>, dropped: Dropped): TracerProvider {
  const provider = otlpTracerProvider({
    endpoint,
    env: { OTEL_TRACES_SAMPLER: "always_on", OTEL_SERVICE_NAME: "worker-export-test", ...env },
    serviceVersion: "0.0.0-test",
    onDropped: (count, reason) => dropped.push({ count, reason }),
  });
  made.push(provider);
  return provider;
}

/** Ends `count` spans named `${prefix} i`, each with attributes, and returns them. */
function endSpans(provider: TracerProvider, prefix: string, count: number): Span[] {
  const tracer = provider.getTracer("worker-export-test");
  return Array.from({ length: count }, (_, i) => {
    const span = tracer.startSpan(`${prefix} ${i}`, { kind: SpanKind.CLIENT, attributes: { "gateway.attempt": i, "gateway.route": "up" } });
    span.end();
    return span;
  });
}

const received = (receiver: Receiver) => Buffer.concat(receiver.bodies.map(({ body }) => body));
const droppedFor = (dropped: Dropped, reason: string) => dropped.filter((entry) => entry.reason === reason).reduce((sum, entry) => sum + entry.count, 0);

describe("span export from a worker thread", () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((provider) => provider.shutdown()));
    await receiver.close();
  });

  it("sends spans made on the calling thread to the receiver's /v1/traces as OTLP protobuf, with their names, trace ids and the service's name", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(receiver.endpoint, { OTEL_BSP_SCHEDULE_DELAY: "100" }, dropped);
    const spans = endSpans(provider, "arrives", 3);
    await provider.forceFlush();

    expect(receiver.bodies.length).toBeGreaterThan(0);
    expect(receiver.bodies.every(({ path, contentType }) => path === "/v1/traces" && contentType === "application/x-protobuf")).toBe(true);
    const wire = received(receiver);
    for (const span of spans) {
      expect(wire.includes(Buffer.from(span.spanContext().traceId, "hex"))).toBe(true);
      expect(wire.includes(Buffer.from(span.spanContext().spanId, "hex"))).toBe(true);
    }
    for (const text of ["arrives 0", "arrives 1", "arrives 2", "gateway.route", "worker-export-test", "0.0.0-test"]) expect(wire.includes(Buffer.from(text))).toBe(true);
    expect(dropped).toEqual([]);
    await provider.shutdown();
  });

  it("sends spans on its own within about the batch delay, with no flush asked", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(receiver.endpoint, { OTEL_BSP_SCHEDULE_DELAY: "200" }, dropped);
    const [span] = endSpans(provider, "unflushed", 1);
    const started = Date.now();
    while (!received(receiver).includes(Buffer.from(span!.spanContext().spanId, "hex")) && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 20));
    // Twice the delay at most (a wait on each side of the hand-off), with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(dropped).toEqual([]);
  });

  it("on shutdown sends the spans still held, however long the export delay", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(receiver.endpoint, { OTEL_BSP_SCHEDULE_DELAY: "600000" }, dropped);
    const spans = endSpans(provider, "held", 5);
    // Nothing leaves before the delay or a flush.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.bodies).toEqual([]);

    await provider.shutdown();
    const wire = received(receiver);
    for (const span of spans) expect(wire.includes(Buffer.from(span.spanContext().spanId, "hex"))).toBe(true);
    expect(dropped).toEqual([]);
  });

  it("counts the spans of a failed export, by the export's error, with the receiver gone", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(`http://127.0.0.1:${await freePort()}`, { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_EXPORTER_OTLP_TIMEOUT: "2000" }, dropped);
    endSpans(provider, "lost", 7);
    await provider.forceFlush();
    expect(dropped.reduce((sum, entry) => sum + entry.count, 0)).toBe(7);
    expect(droppedFor(dropped, "queue_full")).toBe(0);
    await provider.shutdown();
  });

  it("drops and counts as queue_full the spans beyond OTEL_BSP_MAX_QUEUE_SIZE that the worker has not taken, and exports the rest", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(receiver.endpoint, { OTEL_BSP_MAX_QUEUE_SIZE: "10", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "10", OTEL_BSP_SCHEDULE_DELAY: "100" }, dropped);
    // Ended in one turn of the event loop: the worker can take none of them before the 11th.
    const spans = endSpans(provider, "crowded", 25);
    expect(droppedFor(dropped, "queue_full")).toBe(15);
    await provider.forceFlush();
    const wire = received(receiver);
    expect(spans.filter((span) => wire.includes(Buffer.from(span.spanContext().spanId, "hex")))).toHaveLength(10);
    await provider.shutdown();
  });

  it("counts spans ended after the shutdown as dropped rather than losing them unseen", async () => {
    const dropped: Dropped = [];
    const provider = providerFor(receiver.endpoint, {}, dropped);
    await provider.shutdown();
    endSpans(provider, "late", 2);
    expect(droppedFor(dropped, "export_worker_gone")).toBe(2);
  });
});
