/**
 * What one recorded span costs the gateway's event loop, in process and apart from any request:
 * made and ended with the attributes of the gateway's attempt span (given in the start options, set
 * in one call after the start, or none), and encoded for export by the OTLP serializers the SDK's
 * exporters use (protobuf, the gateway's; JSON, the other OTLP/HTTP encoding), with the bytes each
 * puts on the wire. CPU time of this thread (`process.cpuUsage`, which the machine's other work
 * moves less than wall time), the least of several rounds: what the code costs when nothing else
 * gets in its way. The gateway's own copies of the SDK are loaded (gateway/node_modules), not
 * another version the repository holds.
 */
import { createRequire } from "node:module";

const fromGateway = createRequire(new URL("../../gateway/package.json", import.meta.url));

interface SdkSpan {
  setAttributes(attributes: Record<string, unknown>): SdkSpan;
  end(): void;
}
interface SdkTracer {
  startSpan(name: string, options: { kind: number; attributes?: Record<string, unknown> }, context: unknown): SdkSpan;
}
interface Serializer {
  serializeRequest(spans: unknown[]): Uint8Array | undefined;
}

const { TracerProvider, AlwaysOnSampler } = fromGateway("@opentelemetry/sdk-trace") as {
  TracerProvider: new (config: object) => { getTracer(name: string, version: string): SdkTracer };
  AlwaysOnSampler: new () => object;
};
const { ROOT_CONTEXT, SpanKind } = fromGateway("@opentelemetry/api") as { ROOT_CONTEXT: unknown; SpanKind: { CLIENT: number } };
const { resourceFromAttributes } = fromGateway("@opentelemetry/resources") as { resourceFromAttributes(attributes: Record<string, string>): object };
const { ProtobufTraceSerializer, JsonTraceSerializer } = fromGateway("@opentelemetry/otlp-transformer") as { ProtobufTraceSerializer: Serializer; JsonTraceSerializer: Serializer };

/** The attributes of an attempt's client span (telemetry/attempt-spans.ts), new for each span as the gateway builds them. */
const attemptAttributes = (index: number) => ({
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "openai",
  "gen_ai.request.model": "gpt-4o-mini",
  "gen_ai.request.stream": false,
  "gateway.route": "primary",
  "gateway.route.kind": "relay",
  "gateway.attempt": index & 1,
});

/** The least CPU time in ns per call of `work(i)` over `rounds` rounds of `calls` calls. */
function leastCpuNanos(work: (i: number) => unknown, calls: number, rounds: number): number {
  let least = Infinity;
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) work(i);
    const used = process.cpuUsage(before);
    least = Math.min(least, ((used.user + used.system) * 1000) / calls);
  }
  return least;
}

/** Per span: ns to make and end it each way, ns and bytes to encode it each way. */
export function measureSpanCosts(): { making: Record<string, number>; encoding: Record<string, { nanos: number; bytes: number }> } {
  const ended: unknown[] = [];
  const keep = { onStart() {}, onEnd: (span: unknown) => void (ended.length < 512 && ended.push(span)), forceFlush: async () => {}, shutdown: async () => {} };
  const provider = new TracerProvider({
    sampler: new AlwaysOnSampler(),
    resource: resourceFromAttributes({ "service.name": "gateway-keys", "service.version": "bench" }),
    spanProcessors: [keep],
  });
  const tracer = provider.getTracer("@gateway-keys/gateway", "bench");
  const name = "chat gpt-4o-mini";
  const making = {
    "attributes in the start options": (i: number) => tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: attemptAttributes(i) }, ROOT_CONTEXT).end(),
    "attributes set in one call after the start": (i: number) => tracer.startSpan(name, { kind: SpanKind.CLIENT }, ROOT_CONTEXT).setAttributes(attemptAttributes(i)).end(),
    "no attributes": () => tracer.startSpan(name, { kind: SpanKind.CLIENT }, ROOT_CONTEXT).end(),
  };
  const makingNanos = Object.fromEntries(Object.entries(making).map(([way, work]) => [way, leastCpuNanos(work, 20_000, 12)]));
  // A batch as the batch processor hands it over (its default size), of spans like the attempt's.
  const batch = ended.slice(0, 512);
  const encoding = Object.fromEntries(
    Object.entries({ "OTLP protobuf": ProtobufTraceSerializer, "OTLP JSON": JsonTraceSerializer }).map(([way, serializer]) => [
      way,
      { nanos: leastCpuNanos(() => serializer.serializeRequest(batch), 10, 12) / batch.length, bytes: serializer.serializeRequest(batch)!.length / batch.length },
    ]),
  );
  return { making: makingNanos, encoding };
}
