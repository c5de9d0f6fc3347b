import {
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { GatewayTracerProvider, type StartedTraces } from "./started-traces";

/**
 * The gateway's own span attributes, beside the OpenTelemetry conventions' (`http.*`, `gen_ai.*`):
 * what an operator needs to find a request's key and its cost. Never a secret: a key's id, not its
 * hint or secret. docs/operators/operations.md#traces lists them.
 */
export const GATEWAY_ATTRIBUTES = {
  keyId: "gateway.key.id",
  ownerId: "gateway.owner.id",
  route: "gateway.route",
  routeKind: "gateway.route.kind",
  attempt: "gateway.attempt",
  costUnits: "gateway.cost_units",
  reservedUnits: "gateway.reserved_units",
  errorCode: "gateway.error.code",
  /** Which of the key's secrets authenticated: `current` or `previous` (extension secret_use). */
  secret: "gateway.key.secret",
} as const;

const INSTRUMENTATION = "@gateway-keys/gateway";

/** A span that records nothing and belongs to no trace, for work traced while tracing is off or in a trace the gateway started and its sampler dropped. */
const UNTRACED_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** A request in a trace the gateway started and its sampler dropped: its span and the context its work runs under, one for all such requests. */
export const DROPPED_TRACE: { readonly span: Span; readonly context: Context } = { span: UNTRACED_SPAN, context: trace.setSpan(ROOT_CONTEXT, UNTRACED_SPAN) };

/**
 * Spans of one gateway. Each request's context is carried explicitly (on the request, and handed
 * down to what it calls) rather than through an async-context manager, so several gateways in one
 * process never mix their traces. Without a tracer provider tracing is off and costs nothing: no
 * span is made, no trace context read or sent (an application that registered an OpenTelemetry
 * SDK of its own passes `trace.getTracerProvider()` to have the gateway's spans).
 *
 * The W3C trace context is read from each request (`traceparent`, `tracestate`) so the gateway's
 * spans continue the caller's trace, and written into each provider request so the provider's own
 * spans continue it too.
 */
export class GatewayTracing {
  /** Whether spans are made at all: a tracer provider was given. */
  readonly enabled: boolean;
  readonly #tracer: Tracer;
  readonly #propagator = new W3CTraceContextPropagator();
  /** The sampler's decision on a trace the gateway starts, before its first span: known of the gateway's own tracer provider only. */
  readonly #startedTraces: StartedTraces | undefined;

  constructor(provider: TracerProvider | undefined, version: string) {
    this.enabled = provider !== undefined;
    this.#tracer = (provider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION, version);
    this.#startedTraces = provider instanceof GatewayTracerProvider ? provider.startedTraces : undefined;
  }

  /** The caller's trace context from a request's headers (none: a new trace). */
  extract(headers: Record<string, string | string[] | undefined>): Context {
    return this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  }

  /** The span of `context` as outgoing headers: `traceparent` (and `tracestate`). */
  headersOf(context: Context): Record<string, string> {
    const headers: Record<string, string> = {};
    this.#propagator.inject(context, headers, defaultTextMapSetter);
    return headers;
  }

  /** Whether the span of `context` is recorded: its children are made (and their attributes worth building) only then. */
  recording(context: Context): boolean {
    return this.enabled && trace.getSpan(context)?.isRecording() === true;
  }

  /** Whether `context` is in a trace whose context goes on to providers, recorded or not: not when tracing is off, nor in a {@link DROPPED_TRACE}. */
  propagated(context: Context): boolean {
    return this.enabled && trace.getSpan(context) !== UNTRACED_SPAN;
  }

  /**
   * A request's span, under the caller's when it sent one: where the sampler decides whether the
   * request is traced. A trace the gateway starts itself is decided before any span is made
   * ({@link StartedTraces}); a dropped one gets {@link DROPPED_TRACE}'s span, which belongs to no
   * trace, makes no children and sends no trace context on. A caller's trace always gets the SDK's span, recorded or not, so
   * its context goes on to providers.
   */
  startServerSpan(name: string, parent: Context): Span {
    if (this.#startedTraces !== undefined && trace.getSpan(parent) === undefined && !this.#startedTraces.keeps(name)) return UNTRACED_SPAN;
    return this.#tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
  }

  /**
   * A child of `parent`'s span; `kind` CLIENT for a call out of the process. The samplers decide a
   * request's spans as they decided its first (by its trace id, or by its parent), so the child of
   * a span that is not recorded would not be either: none is made, and the parent stands in for it
   * (its context still goes to providers, saying "not sampled"). Build `attributes` only when
   * {@link recording} says the parent is. They are set in one call once the span has started, not
   * in its start options: the SDK copies start options' attributes twice, and adds set ones in place.
   */
  startSpan(name: string, parent: Context, kind: SpanKind = SpanKind.INTERNAL, attributes?: Attributes): Span {
    if (!this.enabled) return UNTRACED_SPAN;
    const parentSpan = trace.getSpan(parent);
    if (parentSpan !== undefined && !parentSpan.isRecording() && parentSpan.spanContext().isRemote !== true) return parentSpan;
    const span = this.#tracer.startSpan(name, { kind }, parent);
    if (attributes !== undefined && span.isRecording()) span.setAttributes(attributes);
    return span;
  }

  /**
   * Runs `work` inside a child span of `parent`'s (with `attributes`), ended when it
   * settles; a failure marks the span as an error (naming the gateway's error code when it has one)
   * and is rethrown.
   */
  inSpan<T>(name: string, parent: Context, work: (span: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
    if (!this.enabled) return work(UNTRACED_SPAN);
    const span = this.startSpan(name, parent, SpanKind.INTERNAL, attributes);
    // Most requests are not sampled: their work runs as if tracing were off, with no wrapper.
    if (!span.isRecording()) return work(span);
    return endedAfter(span, work);
  }
}

/** Runs `work` in `span`, ending it when the work settles; a failure marks the span and is rethrown. */
async function endedAfter<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The context whose active span is `span`, under `parent`: hand it to the work that span covers. */
export function contextWith(parent: Context, span: Span): Context {
  return trace.setSpan(parent, span);
}

/** Marks a span failed by `error`: status ERROR, `error.type` the gateway's code (or the error's name), no message that could hold input. */
export function markFailed(span: Span, error: unknown): void {
  const code = typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
  const type = code ?? (error instanceof Error ? error.name : "Error");
  span.setAttribute("error.type", type);
  if (code !== undefined) span.setAttribute(GATEWAY_ATTRIBUTES.errorCode, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}
