import type { RoutingStrategyName } from "../models/upstream-config";

/** What a strategy needs of a route: its name in the routing state, and its weight. */
export interface WeighedRoute {
  /** `provider/model` (see {@link routeIdOf}). */
  readonly id: string;
  readonly weight: number;
}

/** What this process knows of each route now: requests in flight, and the decaying average of its time to first byte. */
export interface RouteReadings {
  inFlight(routeId: string): number;
  /** Undefined until the route answered or failed once in this process. */
  latencyMs(routeId: string): number | undefined;
}

/**
 * Under `lowest-latency`, the share of requests that go out in a weighted-random order instead:
 * without it a route that was slow once would never be tried again, and its recovery never seen.
 */
export const LATENCY_EXPLORATION = 0.05;

/** Each route with a random key that decides ties (and, weighted, the order itself). */
interface Keyed<Route> {
  route: Route;
  key: number;
}

/**
 * Weighted random order without replacement (Efraimidis–Spirakis): each route's key is
 * `u^(1/weight)`, highest first, so each place goes to a route with a probability proportional
 * to its weight among those left — the first place, which takes the traffic, exactly so.
 */
function weightedOrder<Route extends WeighedRoute>(routes: readonly Route[], random: () => number): Route[] {
  const keyed: Keyed<Route>[] = routes.map((route) => ({ route, key: Math.pow(random(), 1 / route.weight) }));
  return keyed.sort((a, b) => b.key - a.key).map(({ route }) => route);
}

/** The routes by `score`, lowest first; equal scores in random order. */
function byScore<Route extends WeighedRoute>(routes: readonly Route[], score: (route: Route) => number, random: () => number): Route[] {
  const keyed = routes.map((route) => ({ route, score: score(route), key: random() }));
  return keyed.sort((a, b) => a.score - b.score || a.key - b.key).map(({ route }) => route);
}

/**
 * The order one request tries a model's routes in, by the model's strategy
 * (docs/operators/routing.md#strategies):
 * - `ordered`: as the config lists them (the first that answers takes all the traffic);
 * - `weighted`: a weighted random order, so the first route is each one as often as its weight says;
 * - `least-busy`: fewest requests in flight in this process first;
 * - `lowest-latency`: lowest decaying average time to first byte first (a route never measured
 *   counts as fastest, so it is measured), with {@link LATENCY_EXPLORATION} of requests weighted-random.
 * Ties go at random. A route's place only says when it is tried; the attempts go on down the list.
 */
export function orderRoutes<Route extends WeighedRoute>(
  strategy: RoutingStrategyName,
  routes: readonly Route[],
  readings: RouteReadings,
  random: () => number = Math.random,
): readonly Route[] {
  if (routes.length < 2) return routes;
  switch (strategy) {
    case "ordered":
      return routes;
    case "weighted":
      return weightedOrder(routes, random);
    case "least-busy":
      return byScore(routes, (route) => readings.inFlight(route.id), random);
    case "lowest-latency":
      if (random() < LATENCY_EXPLORATION) return weightedOrder(routes, random);
      return byScore(routes, (route) => readings.latencyMs(route.id) ?? 0, random);
  }
}

/** A route's name in the routing state, metrics, the request log and the `x-gateway-route` header: `provider/model`, or `built-in/model`. */
export function routeIdOf(route: { provider?: { name: string }; model?: string }, modelId: string): string {
  return route.provider ? `${route.provider.name}/${route.model}` : `built-in/${modelId}`;
}
