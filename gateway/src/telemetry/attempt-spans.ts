import { SpanKind, type Context } from "@opentelemetry/api";
import { GEN_AI, GEN_AI_PROVIDER } from "./genai";
import { GATEWAY_ATTRIBUTES, contextWith, markFailed, type GatewayTracing } from "./tracing";

/** What a span needs of a route (dispatch/choose-route.ts's routes have it): its kind, and the provider and model of a forwarded one. */
interface TracedRoute {
  kind: string;
  provider?: { name: string; kind: string };
  model?: string;
}

type Outcome = { answered: true } | { answered: false; error: unknown };

/**
 * One client span per route a request tries (dispatch/attempts.ts's observer): named
 * `{operation} {model}` as the GenAI conventions name a call to a model, with the provider, the
 * provider's model id, which route and which attempt; a failure that sent the request on to the next
 * route is an error span beside the one that answered. Each attempt's trace context goes in its
 * headers, which the provider request carries, so the provider's own spans continue the trace.
 * A streamed answer's attempt ends at its first piece: its `gen_ai.response.time_to_first_chunk`.
 */
export function attemptSpans(tracing: GatewayTracing, parent: Context, operation: string, requestedModel: string, streamed: boolean) {
  if (!tracing.enabled) return undefined;
  return {
    started(route: TracedRoute, index: number) {
      const model = route.model ?? requestedModel;
      const started = streamed ? performance.now() : 0;
      const span = tracing.startSpan(`${operation} ${model}`, parent, SpanKind.CLIENT);
      if (span.isRecording()) {
        span.setAttributes({
          [GEN_AI.operationName]: operation,
          [GEN_AI.providerName]: route.provider ? (GEN_AI_PROVIDER[route.provider.kind] ?? route.provider.kind) : GEN_AI_PROVIDER["built-in"]!,
          [GEN_AI.requestModel]: model,
          [GEN_AI.requestStream]: streamed,
          [GATEWAY_ATTRIBUTES.route]: route.provider?.name ?? "built-in",
          [GATEWAY_ATTRIBUTES.routeKind]: route.kind,
          [GATEWAY_ATTRIBUTES.attempt]: index,
        });
      }
      // Also when this span is not recorded: the provider then continues the caller's trace (or hears it is not sampled).
      const headers: Record<string, string> = {};
      tracing.inject(contextWith(parent, span), headers);
      return {
        headers,
        ended(outcome: Outcome) {
          if (!span.isRecording()) return;
          if (!outcome.answered) markFailed(span, outcome.error);
          else if (streamed) span.setAttribute(GEN_AI.responseTimeToFirstChunk, (performance.now() - started) / 1000);
          span.end();
        },
      };
    },
  };
}
