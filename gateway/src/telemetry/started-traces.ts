import { ROOT_CONTEXT, SpanKind } from "@opentelemetry/api";
import { RandomIdGenerator, SamplingDecision, TracerProvider, type IdGenerator, type Sampler, type TracerProviderOptions } from "@opentelemetry/sdk-trace";

/**
 * The sampler's decision on a trace the gateway starts itself (a request without a caller's
 * `traceparent`), asked before any span exists: most such traces are dropped, and a dropped one
 * then costs the decision alone — no span, no span id, no trace context sent on (W3C passes on a
 * caller's context; there is none to pass on for a trace nobody keeps). A kept trace's first span
 * gets the very trace id the sampler was asked about: this is the tracer provider's id generator
 * and hands that id to its next new trace, so the SDK's own sampler call sees the same id and
 * decides the same (every `OTEL_TRACES_SAMPLER` sampler decides a new trace by its id alone).
 */
export class StartedTraces implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  readonly #sampler: Sampler;
  /** The trace id of the kept trace whose server span is about to start. */
  #kept: string | undefined;

  constructor(sampler: Sampler) {
    this.#sampler = sampler;
  }

  /** Whether the sampler keeps a new trace whose first span is the server span `name`; if so, the next new trace gets the id it was asked about. */
  keeps(name: string): boolean {
    const traceId = this.#random.generateTraceId();
    if (this.#sampler.shouldSample(ROOT_CONTEXT, traceId, name, SpanKind.SERVER, {}, []).decision === SamplingDecision.NOT_RECORD) return false;
    this.#kept = traceId;
    return true;
  }

  generateTraceId(): string {
    const traceId = this.#kept ?? this.#random.generateTraceId();
    this.#kept = undefined;
    return traceId;
  }

  generateSpanId(): string {
    return this.#random.generateSpanId();
  }
}

/** The SDK's tracer provider, whose sampler also decides the traces the gateway starts before their first span ({@link StartedTraces}). */
export class GatewayTracerProvider extends TracerProvider {
  readonly startedTraces: StartedTraces;

  constructor(options: TracerProviderOptions & { sampler: Sampler }) {
    const startedTraces = new StartedTraces(options.sampler);
    super({ ...options, idGenerator: startedTraces });
    this.startedTraces = startedTraces;
  }
}
