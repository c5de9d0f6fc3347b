import { GatewayError } from "../errors";
import type { RateAdmission, RateLimits } from "../metering/interfaces";
import type { RouteQuota } from "../models/catalog";
import type { RoutingStrategyName } from "../models/upstream-config";
import type { RouteMetrics } from "../ops/route-metrics";
import { isRouteFailure, type AttemptObserver, type AttemptWatch } from "./attempts";
import type { RouteStrategy } from "./choose-route";
import type { RouteCooldowns } from "./route-health";
import type { RouteReadingsTable } from "./route-readings";
import { orderRoutes, routeIdOf } from "./strategies";

/** A route as the router reads it: the catalog's, and every kind dispatch/choose-route.ts makes of it. */
interface RoutedRoute {
  kind?: string;
  provider?: { name: string; timeoutMs?: number };
  model?: string;
  weight?: number;
  quota?: RouteQuota;
}

/** The key a route's quota is counted under among the key rate limits' buckets: no key id has this form. */
const quotaBucketOf = (routeId: string) => `route:${routeId}`;

/** The provider's `Retry-After` (ms) on a route's 429, when it gave one. */
function retryAfterOf(error: GatewayError): number | undefined {
  const ms = Number(error.headers?.["retry-after-ms"]);
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(error.headers?.["retry-after"]);
  if (Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  const date = Date.parse(error.headers?.["retry-after"] ?? "");
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/**
 * Whether a route failure counts towards its cooldown: a timeout, a cut connection, a 5xx, refused
 * credentials, or a 429 with `Retry-After` (one without says nothing of how long the route is full).
 */
function countsTowardsCooldown(error: unknown): error is GatewayError {
  if (!isRouteFailure(error)) return false;
  const failure = error as GatewayError;
  return failure.code !== "upstream_rate_limited" || retryAfterOf(failure) !== undefined;
}

/** What the routing of every request shares: the process's readings, the cooldowns, the quotas' counters. */
export interface RouterDependencies {
  readings: RouteReadingsTable;
  cooldowns: RouteCooldowns;
  /** Where quotas are counted: the key rate limits' counters (across processes on PostgreSQL). */
  rates: RateLimits;
  metrics?: RouteMetrics;
  now: () => number;
  random?: () => number;
}

/**
 * Spreads requests over a model's routes (docs/operators/routing.md): orders them by the model's
 * strategy, leaves out those cooling down, routes around deployments whose quota is full, and
 * learns from each attempt. {@link plan} makes one request's {@link RoutePlan}.
 */
export class Router {
  readonly #deps: RouterDependencies;

  constructor(deps: RouterDependencies) {
    this.#deps = deps;
  }

  /**
   * One request's plan for a model of `routeCount` routes. With more than one, it waits for the
   * cooldowns' view when that is old (a round trip on PostgreSQL, at most every 250 ms per process),
   * so a route another process cooled is skipped from this process's next request on.
   */
  async plan(modelId: string, strategy: RoutingStrategyName | undefined, routeCount: number): Promise<RoutePlan> {
    if (routeCount > 1) await this.#deps.cooldowns.fresh(this.#deps.now());
    return new RoutePlan(this.#deps, modelId, strategy ?? "ordered");
  }
}

/**
 * One request's routing: the order of its routes ({@link order}, the strategy seam of
 * dispatch/choose-route.ts), each attempt's admission ({@link attempt}: the quota, the probe of a
 * route whose cooldown is over), what each attempt taught ({@link observer}), and the end
 * ({@link finish}). A route passed over fails its attempt with an error the loop goes past, so
 * dispatch/attempts.ts stays the one loop.
 */
export class RoutePlan {
  readonly #deps: RouterDependencies;
  readonly #modelId: string;
  readonly #strategy: RoutingStrategyName;
  /** Routes whose cooldown is over: their attempt must take the probe. */
  readonly #probes = new Set<string>();
  /** The errors of routes passed over without being sent the request, each with when it would have room (ms). */
  readonly #skips = new Map<unknown, number>();
  #probing: string | undefined;
  /** The place the current attempt took in its route's quota, until the request ends (or the attempt fails). */
  #admission: RateAdmission | undefined;
  #lastFailure: unknown;
  #finished = false;
  /** The tokens a quota counts for this request: its input and its whole output bound (given back unused at the end). */
  tokens = 0;
  /** The provider route that answered: for the `x-gateway-route` header and the request log (a built-in model's is not named). */
  chosen: string | undefined;
  /** The route that answered, of either kind: its place in flight is freed at {@link finish}. */
  #answered: string | undefined;

  constructor(deps: RouterDependencies, modelId: string, strategy: RoutingStrategyName) {
    this.#deps = deps;
    this.#modelId = modelId;
    this.#strategy = strategy;
  }

  idOf(route: RoutedRoute): string {
    return routeIdOf(route, this.#modelId);
  }

  /**
   * The model's routes in the strategy's order, without those cooling down; a route whose cooldown
   * is over stays, its attempt the probe. When no route is open (every one cools or awaits its
   * probe), all are tried in order, none as a probe: cooldowns choose between routes, and never
   * refuse a request on their own.
   */
  readonly order: RouteStrategy = (routes) => {
    const { readings, cooldowns, now, random } = this.#deps;
    const weighed = routes.map((route) => ({ route, id: this.idOf(route), weight: (route as RoutedRoute).weight ?? 1 }));
    const ordered = orderRoutes(this.#strategy, weighed, readings, random);
    // A lone route is tried whatever its standing: its view is not even read (no round trip on PostgreSQL).
    if (!cooldowns.enabled || ordered.length < 2) return ordered.map(({ route }) => route);
    const at = now();
    const standings = ordered.map(({ id }) => cooldowns.standing(id, at));
    if (!standings.includes("open")) return ordered.map(({ route }) => route);
    return ordered
      .filter(({ id }, index) => {
        if (standings[index] === "probe") this.#probes.add(id);
        if (standings[index] === "cooling") this.#deps.metrics?.skipped(id, "cooling");
        return standings[index] !== "cooling";
      })
      .map(({ route }) => route);
  };

  /** `send` behind the route's admission: its probe when its cooldown is over, a place in its quota when it has one. */
  attempt<Route extends RoutedRoute, Answer>(send: (route: Route, headers: Readonly<Record<string, string>>) => Promise<Answer>) {
    return async (route: Route, headers: Readonly<Record<string, string>>): Promise<Answer> => {
      const id = this.idOf(route);
      const { cooldowns, now } = this.#deps;
      // The quota first: a probe claimed for a route then found full would hold its lease unsent.
      if (route.quota) await this.#admit(id, route.quota);
      if (this.#probes.has(id)) {
        // The probe's lease outlasts its attempt: a process killed mid-probe frees it a timeout later.
        if (!(await cooldowns.claimProbe(id, now(), 2 * (route.provider?.timeoutMs ?? 60_000)))) {
          this.#giveBack(0);
          throw this.#skip(Math.max(1000, (cooldowns.coolingUntil(id) ?? now()) - now()), `the route ${id} is cooling down after failures`);
        }
        this.#probing = id;
      }
      return send(route, headers);
    };
  }

  async #admit(id: string, quota: RouteQuota): Promise<void> {
    const { rates, now, metrics } = this.#deps;
    const verdict = await rates.admit([{ id: quotaBucketOf(id), policy: quota }], this.tokens, now());
    const [figures] = verdict.figures;
    if (figures?.requests) metrics?.quotaRemaining(id, "requests", figures.requests.remaining);
    if (figures?.tokens) metrics?.quotaRemaining(id, "tokens", figures.tokens.remaining);
    if (verdict.admission) {
      this.#admission = verdict.admission;
      return;
    }
    metrics?.skipped(id, "quota");
    const which = verdict.refusal?.by === "tokens" ? `tokensPerMinute (${quota.tokensPerMinute})` : `requestsPerMinute (${quota.requestsPerMinute})`;
    throw this.#skip(verdict.refusal?.retryAfterMs ?? 0, `the route ${id} reached its ${which}`);
  }

  /** The error of a route passed over, which the attempt loop goes past. */
  #skip(retryAfterMs: number, message: string): GatewayError {
    const error = new GatewayError("upstream_rate_limited", `The gateway did not send the request: ${message}.`);
    this.#skips.set(error, retryAfterMs);
    return error;
  }

  /** Hears each attempt: the process's readings, the metrics, the cooldowns' failures and probes. */
  readonly observer: AttemptObserver<RoutedRoute> = {
    started: (route): AttemptWatch => {
      const id = this.idOf(route);
      const { readings, cooldowns, metrics, now } = this.#deps;
      const started = performance.now();
      readings.started(id);
      return {
        ended: (outcome) => {
          if (!outcome.answered && this.#skips.has(outcome.error)) {
            readings.ended(id);
            return;
          }
          const seconds = (performance.now() - started) / 1000;
          readings.measured(id, seconds * 1000, !outcome.answered);
          if (outcome.answered) {
            this.#answered = id;
            if (route.provider) this.chosen = id;
            metrics?.attempt(id, "answered", seconds);
            if (this.#probing === id) cooldowns.recovered(id).catch(() => undefined);
            return;
          }
          readings.ended(id);
          this.#lastFailure = outcome.error;
          this.#giveBack(0);
          const limited = outcome.error instanceof GatewayError && outcome.error.code === "upstream_rate_limited";
          metrics?.attempt(id, limited ? "rate_limited" : "failed", seconds);
          if (countsTowardsCooldown(outcome.error)) cooldowns.failed(id, now(), retryAfterOf(outcome.error)).catch(() => undefined);
        },
      };
    },
  };

  /**
   * The error the client gets when no route answered: a route's own failure when one was tried;
   * when every route was passed over (its quota full, its probe another request's), a 429 whose
   * `Retry-After` is when the first has room again.
   */
  failure(error: unknown): unknown {
    if (!this.#skips.has(error)) return error;
    if (this.#lastFailure !== undefined) return this.#lastFailure;
    const soonest = Math.min(...this.#skips.values());
    if (!Number.isFinite(soonest)) {
      return new GatewayError("upstream_rate_limited", `This request may use ${this.tokens} tokens, more than any route of the model ${JSON.stringify(this.#modelId)} allows in a minute; set a smaller output bound.`);
    }
    const retryMs = Math.max(1, Math.ceil(soonest));
    return new GatewayError("upstream_rate_limited", `Every route of the model ${JSON.stringify(this.#modelId)} is at its quota or cooling down; retry after ${(retryMs / 1000).toFixed(1)} s.`, {
      headers: { "retry-after": String(Math.ceil(retryMs / 1000)), "retry-after-ms": String(retryMs) },
    });
  }

  /** The request ended (its answer's last byte, or its failure): the route's place in flight is freed, its unused tokens given back. */
  finish(usedTokens?: number): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#answered !== undefined) this.#deps.readings.ended(this.#answered);
    this.#giveBack(usedTokens);
  }

  /** Gives the quota back the tokens the request did not use (all of them when it failed; none when unknown). */
  #giveBack(usedTokens: number | undefined): void {
    const held = this.#admission;
    if (!held) return;
    this.#admission = undefined;
    const used = usedTokens === undefined ? held.tokens : Math.min(usedTokens, held.tokens);
    this.#deps.rates.release(held, used, this.#deps.now()).catch(() => undefined);
  }
}
