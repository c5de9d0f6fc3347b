import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import type { GatewayMetrics } from "./metrics";
import type { ServingState } from "./serving-state";

/** The `route` label of a request no route matched (a 404): never the raw URL, which may hold anything. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Follows every request from arrival to the end of its answer — its response's `close`, which
 * also comes for a streamed (hijacked) reply and for a client that went away, where Fastify's
 * `onResponse` does not — for the HTTP metrics and the in-flight count a shutdown waits on.
 */
export function trackRequests(app: FastifyInstance, metrics: GatewayMetrics, serving: ServingState): void {
  app.addHook("onRequest", (request, reply, done) => {
    const started = performance.now();
    serving.requestStarted();
    metrics.httpInFlight(1);
    reply.raw.once("close", () => {
      // 0: the client went away before an answer began.
      const status = reply.raw.headersSent ? reply.raw.statusCode : 0;
      metrics.httpRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, status, (performance.now() - started) / 1000);
      metrics.httpInFlight(-1);
      serving.requestEnded();
    });
    done();
  });
}
