import { SpanKind, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { GEN_AI, GEN_AI_PROVIDER } from "./genai";
import { GATEWAY_ATTRIBUTES, contextWith, markFailed, type GatewayTracing } from "./tracing";

/** What a span needs of a route (dispatch/choose-route.ts's routes have it): its kind, and the provider and model of a forwarded one. */
interface TracedRoute {
  kind: string;
  provider?: { name: string; kind: string };
  model?: string;
}

/** How an attempt ended, as dispatch/attempts.ts's observer hears it (written out: telemetry sits below dispatch). */
type AttemptOutcome = { answered: true } | { answered: false; error: unknown };

/** An attempt followed: the headers its provider request carries, and its end. */
interface AttemptWatch {
  readonly headers: Readonly<Record<string, string>>;
  ended(outcome: AttemptOutcome): void;
}

/** dispatch/attempts.ts's observer of a request's attempts. */
interface AttemptObserver {
  started(route: TracedRoute, index: number): AttemptWatch;
}

/**
 * One client span per route a request tries (dispatch/attempts.ts's observer): named
 * `{operation} {model}` as the GenAI conventions name a call to a model, with the provider, the
 * provider's model id, which route and which attempt; a failure that sent the request on to the next
 * route is an error span beside the one that answered. Each attempt's trace context goes in its
 * headers, which the provider request carries, so the provider's own spans continue the trace.
 * A streamed answer's attempt ends at its first piece: its `gen_ai.response.time_to_first_chunk`.
 *
 * A request that is not sampled makes no span: every attempt carries its server span's context
 * (which tells the provider the trace is not sampled), put into headers once for all of them; in a
 * trace the gateway started and dropped, there is no context to carry and no observer.
 */
export function attemptSpans(tracing: GatewayTracing, parent: Context, operation: string, requestedModel: string, streamed: boolean): AttemptObserver | undefined {
  if (!tracing.propagated(parent)) return undefined;
  if (!tracing.recording(parent)) return new UnsampledAttempts(tracing, parent);
  return new AttemptSpans(tracing, parent, operation, requestedModel, streamed);
}

/** The attempts of a request whose spans are not recorded: only its trace context goes on, the same for each. */
class UnsampledAttempts implements AttemptObserver {
  #watch: AttemptWatch | undefined;

  constructor(
    readonly tracing: GatewayTracing,
    readonly parent: Context,
  ) {}

  started(): AttemptWatch {
    return (this.#watch ??= { headers: this.tracing.headersOf(this.parent), ended: ignoreOutcome });
  }
}

function ignoreOutcome(): void {}

/** The attempts of a recorded request: a client span each, its context in that attempt's headers. */
class AttemptSpans implements AttemptObserver {
  constructor(
    readonly tracing: GatewayTracing,
    readonly parent: Context,
    readonly operation: string,
    readonly requestedModel: string,
    readonly streamed: boolean,
  ) {}

  started(route: TracedRoute, index: number): AttemptWatch {
    const model = route.model ?? this.requestedModel;
    const attributes: Attributes = {
      [GEN_AI.operationName]: this.operation,
      [GEN_AI.providerName]: route.provider ? (GEN_AI_PROVIDER[route.provider.kind] ?? route.provider.kind) : GEN_AI_PROVIDER["built-in"]!,
      [GEN_AI.requestModel]: model,
      [GEN_AI.requestStream]: this.streamed,
      [GATEWAY_ATTRIBUTES.route]: route.provider?.name ?? "built-in",
      [GATEWAY_ATTRIBUTES.routeKind]: route.kind,
      [GATEWAY_ATTRIBUTES.attempt]: index,
    };
    const span = this.tracing.startSpan(`${this.operation} ${model}`, this.parent, SpanKind.CLIENT, attributes);
    return new AttemptSpan(span, this.tracing.headersOf(contextWith(this.parent, span)), this.streamed ? performance.now() : undefined);
  }
}

/** One attempt's span: ended when the attempt answers (a stream: at its first piece) or fails. */
class AttemptSpan implements AttemptWatch {
  constructor(
    readonly span: Span,
    readonly headers: Readonly<Record<string, string>>,
    /** When a streamed attempt started (`performance.now()`), for its time to first chunk. */
    readonly streamStarted: number | undefined,
  ) {}

  ended(outcome: AttemptOutcome): void {
    if (!outcome.answered) markFailed(this.span, outcome.error);
    else if (this.streamStarted !== undefined) this.span.setAttribute(GEN_AI.responseTimeToFirstChunk, (performance.now() - this.streamStarted) / 1000);
    this.span.end();
  }
}
