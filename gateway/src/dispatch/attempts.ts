import { GatewayError } from "../errors";

/** How one attempt ended: it answered (whole, or a stream's first piece), or it failed with `error`. */
export type AttemptOutcome = { answered: true } | { answered: false; error: unknown };

/** One attempt as its observer follows it. */
export interface AttemptWatch {
  /** Headers the attempt's provider request carries: the trace context of the attempt's span (telemetry/attempt-spans.ts). */
  readonly headers?: Readonly<Record<string, string>>;
  ended(outcome: AttemptOutcome): void;
}

/**
 * Hears each attempt on a route: `started` when it begins, the watch it returns when it ends —
 * where a trace puts one client span per attempt, or a strategy learns a route's latency.
 */
export interface AttemptObserver<Route> {
  started(route: Route, index: number): AttemptWatch;
}

/**
 * Two observers as one: each hears every attempt (a trace's spans, the router's readings). The
 * attempt's headers are the first's: only a trace sends any.
 */
export function bothObservers<Route>(first: AttemptObserver<Route> | undefined, second: AttemptObserver<Route>): AttemptObserver<Route> {
  if (!first) return second;
  return {
    started(route, index) {
      const one = first.started(route, index);
      const other = second.started(route, index);
      return {
        headers: one.headers,
        ended(outcome) {
          one.ended(outcome);
          other.ended(outcome);
        },
      };
    },
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export interface AttemptOptions<Route> {
  /** The client is gone: no further route is tried. */
  signal: AbortSignal;
  /**
   * A text request's routes after the first may refuse a field the first could carry (its refusal
   * was checked before anything was metered): such a route is skipped, its refusal not the answer.
   */
  skipLaterRefusals?: boolean;
  observer?: AttemptObserver<NoInfer<Route>>;
}

/** Whether the next route may be tried: the failure was this route's (its provider's), not the request's. */
export function isRouteFailure(error: unknown): boolean {
  return error instanceof GatewayError && (error.code === "upstream_failed" || error.code === "upstream_timeout" || error.code === "upstream_rate_limited");
}

/**
 * Tries `routes` in the order given until one answers, and resolves with its answer: the one
 * try-the-next-route loop of every family. The next route is tried only after a failure of the
 * route itself (timeout, reset, 429, 5xx, refused credentials: upstream/provider-errors.ts), and
 * only while the client is there; any other error (the provider refused the request, the client
 * left) is thrown at once. When every route failed, the last route failure is thrown.
 */
export async function attemptRoutes<Route, Answer>(
  routes: readonly Route[],
  attempt: (route: Route, headers: Readonly<Record<string, string>>) => Promise<Answer>,
  options: AttemptOptions<Route>,
): Promise<Answer> {
  // Made only when needed: an error's stack costs more than the rest of the loop.
  let failure: unknown;
  for (const [index, route] of routes.entries()) {
    const watch = options.observer?.started(route, index);
    let answer: Answer;
    try {
      answer = await attempt(route, watch?.headers ?? NO_HEADERS);
    } catch (error) {
      watch?.ended({ answered: false, error });
      const skipped = options.skipLaterRefusals === true && index > 0 && error instanceof GatewayError && error.code === "validation_failed";
      if (!(isRouteFailure(error) || skipped) || options.signal.aborted) throw error;
      if (!skipped) failure = error;
      continue;
    }
    watch?.ended({ answered: true });
    return answer;
  }
  throw failure ?? new GatewayError("internal_error", "The model has no route to try.");
}
