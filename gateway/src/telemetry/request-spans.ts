import type { FastifyInstance, FastifyRequest } from "fastify";
import { ROOT_CONTEXT, SpanStatusCode, type Context, type Span } from "@opentelemetry/api";
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH, ATTR_URL_SCHEME } from "@opentelemetry/semantic-conventions";
import { UNMATCHED_ROUTE } from "../ops/request-tracking";
import { DROPPED_TRACE, contextWith, type GatewayTracing } from "./tracing";

/** A request's server span and the context its work runs under (the span as parent). */
export interface RequestTrace {
  readonly span: Span;
  readonly context: Context;
}

/** Before the hooks ran (a framework error): no span, and no parent but a new trace. */
const UNTRACED: RequestTrace | null = null;

/**
 * One server span per request, from its arrival to the end of its answer (the response's `close`,
 * which comes for streams and for a client that went away too), continuing the caller's trace when
 * the request carries a `traceparent`. Named by method and route pattern, never by the raw URL; the
 * path is recorded without its query.
 */
export function traceRequests(app: FastifyInstance, tracing: GatewayTracing): void {
  app.decorateRequest("trace", UNTRACED);
  if (!tracing.enabled) return;
  app.addHook("onRequest", (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const parent = tracing.extract(request.headers);
    const span = tracing.startServerSpan(`${request.method} ${route}`, parent);
    if (span === DROPPED_TRACE.span) {
      request.trace = DROPPED_TRACE;
      return done();
    }
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_HTTP_ROUTE]: route,
        [ATTR_URL_PATH]: request.url.split("?", 1)[0]!,
        [ATTR_URL_SCHEME]: request.protocol,
      });
    }
    request.trace = { span, context: contextWith(parent, span) };
    if (!span.isRecording()) return done();
    reply.raw.once("close", () => {
      // 0: the client went away before an answer began.
      const status = reply.raw.headersSent ? reply.raw.statusCode : 0;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500 || status === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: status === 0 ? "client closed before an answer" : `HTTP ${status}` });
      span.end();
    });
    done();
  });
}

/** The context a request's work runs under: its server span's, or a new trace's before the hooks ran. */
export function traceContextOf(request: FastifyRequest): Context {
  return request.trace?.context ?? ROOT_CONTEXT;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set on arrival by {@link traceRequests}: the request's server span and its context. */
    trace: RequestTrace | null;
  }
}
