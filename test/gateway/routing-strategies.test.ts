/**
 * The routing strategies (gateway/src/dispatch/strategies.ts) and the cooldowns' record
 * (metering/route-health-records.ts), as pure functions over many draws: which route each strategy
 * puts first, how often, and how a route cools, is probed and recovers. Over HTTP and across
 * processes: routing.test.ts and routing-cluster.test.ts.
 */
import { LATENCY_EXPLORATION, orderRoutes, type RouteReadings } from "@gateway-keys/gateway/dist/dispatch/strategies";
import { RouteReadingsTable } from "@gateway-keys/gateway/dist/dispatch/route-readings";
import { MemoryRouteHealth } from "@gateway-keys/gateway/dist/metering/route-health-records";
import { RouteCooldowns } from "@gateway-keys/gateway/dist/dispatch/route-health";

/** A seeded generator (mulberry32), so a draw that fails can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const routes = [
  { id: "east/gpt", weight: 5 },
  { id: "west/gpt", weight: 3 },
  { id: "north/gpt", weight: 2 },
];

const idle: RouteReadings = { inFlight: () => 0, latencyMs: () => undefined };

/** How often each route comes first over `draws` orders. */
function firstCounts(order: () => readonly { id: string }[], draws: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let draw = 0; draw < draws; draw++) {
    const first = order()[0]!.id;
    counts[first] = (counts[first] ?? 0) + 1;
  }
  return counts;
}

describe("routing strategies", () => {
  test("ordered keeps the config's order on every request", () => {
    const random = seeded(1);
    for (let draw = 0; draw < 100; draw++) expect(orderRoutes("ordered", routes, idle, random).map((route) => route.id)).toEqual(["east/gpt", "west/gpt", "north/gpt"]);
  });

  test("weighted puts each route first as often as its weight says (within 1% over 100,000 draws), and lists every route once", () => {
    const random = seeded(2);
    const draws = 100_000;
    const counts = firstCounts(() => orderRoutes("weighted", routes, idle, random), draws);
    expect(Math.abs(counts["east/gpt"]! / draws - 0.5)).toBeLessThan(0.01);
    expect(Math.abs(counts["west/gpt"]! / draws - 0.3)).toBeLessThan(0.01);
    expect(Math.abs(counts["north/gpt"]! / draws - 0.2)).toBeLessThan(0.01);
    const once = orderRoutes("weighted", routes, idle, random).map((route) => route.id);
    expect([...once].sort()).toEqual(["east/gpt", "north/gpt", "west/gpt"]);
  });

  test("least-busy puts the route with the fewest requests in flight first, and splits ties evenly", () => {
    const random = seeded(3);
    const busy: RouteReadings = { inFlight: (id) => ({ "east/gpt": 4, "west/gpt": 1, "north/gpt": 1 })[id]!, latencyMs: () => undefined };
    const counts = firstCounts(() => orderRoutes("least-busy", routes, busy, random), 10_000);
    expect(counts["east/gpt"]).toBeUndefined();
    expect(Math.abs(counts["west/gpt"]! / 10_000 - 0.5)).toBeLessThan(0.03);
    expect(orderRoutes("least-busy", routes, busy, random).at(-1)!.id).toBe("east/gpt");
  });

  test("lowest-latency sends all but its exploration share to the fastest route, and measures a route it never tried first", () => {
    const random = seeded(4);
    const table = new RouteReadingsTable();
    table.measured("east/gpt", 900, false);
    table.measured("west/gpt", 40, false);
    table.measured("north/gpt", 200, false);
    const draws = 20_000;
    const counts = firstCounts(() => orderRoutes("lowest-latency", routes, table, random), draws);
    expect(counts["west/gpt"]! / draws).toBeGreaterThan(1 - LATENCY_EXPLORATION);
    // The exploration share reaches the slow route too, so its recovery would be seen.
    expect(counts["east/gpt"]).toBeGreaterThan(0);
    const fresh = new RouteReadingsTable();
    fresh.measured("east/gpt", 50, false);
    fresh.measured("west/gpt", 50, false);
    expect(firstCounts(() => orderRoutes("lowest-latency", routes, fresh, random), 1000)["north/gpt"]).toBeGreaterThan(900);
  });

  test("a latency average follows a route that slows down and one that recovers, and a failure counts as slow", () => {
    const table = new RouteReadingsTable();
    for (let sample = 0; sample < 20; sample++) table.measured("a", 50, false);
    for (let sample = 0; sample < 20; sample++) table.measured("a", 1000, false);
    expect(table.latencyMs("a")).toBeGreaterThan(950);
    for (let sample = 0; sample < 20; sample++) table.measured("a", 50, false);
    expect(table.latencyMs("a")).toBeLessThan(100);
    table.measured("b", 10, false);
    table.measured("b", 5, true);
    expect(table.latencyMs("b")).toBeGreaterThan(10);
  });
});

describe("cooldowns", () => {
  const policy = { failures: 3, windowMs: 10_000, cooldownMs: 5_000 };

  test("a route cools after its third failure in the window, not before; failures spread wider than the window never cool it", async () => {
    const health = new MemoryRouteHealth();
    expect(await health.failed("r", 0, policy, policy.cooldownMs)).toBeNull();
    expect(await health.failed("r", 1000, policy, policy.cooldownMs)).toBeNull();
    expect(await health.failed("r", 2000, policy, policy.cooldownMs)).toBe(7000);
    const spread = new MemoryRouteHealth();
    for (let at = 0; at < 100_000; at += 6000) expect(await spread.failed("s", at, policy, policy.cooldownMs)).toBeNull();
  });

  test("after the cooldown one probe is let through; the route takes traffic again only once it answered", async () => {
    const health = new MemoryRouteHealth();
    const cooldowns = new RouteCooldowns(health, policy);
    for (let at = 0; at < 3; at++) await cooldowns.failed("r", at, undefined);
    expect(cooldowns.standing("r", 100)).toBe("cooling");
    // Another process's cooldown reaches this view at its next re-read.
    const other = new RouteCooldowns(health, policy);
    expect(other.standing("r", 100)).toBe("open");
    await other.fresh(100);
    expect(other.standing("r", 100)).toBe("cooling");
    expect(other.fresh(200)).toBeUndefined();
    expect(cooldowns.standing("r", 5002)).toBe("probe");
    expect(await cooldowns.claimProbe("r", 5002, 1000)).toBe(true);
    expect(await cooldowns.claimProbe("r", 5003, 1000)).toBe(false);
    await cooldowns.recovered("r");
    expect(cooldowns.standing("r", 5004)).toBe("open");
    expect(await health.cooling()).toEqual([]);
  });

  test("a probe that fails cools the route again; a provider's Retry-After sets the cooldown's length", async () => {
    const health = new MemoryRouteHealth();
    const cooldowns = new RouteCooldowns(health, { ...policy, failures: 1 });
    await cooldowns.failed("r", 0, 60_000);
    expect(cooldowns.coolingUntil("r")).toBe(60_000);
    expect(await cooldowns.claimProbe("r", 60_000, 1000)).toBe(true);
    await cooldowns.failed("r", 60_100, undefined);
    expect(cooldowns.standing("r", 60_200)).toBe("cooling");
    expect(cooldowns.coolingUntil("r")).toBe(65_100);
  });

  test("with cooldowns off no route is ever skipped", async () => {
    const cooldowns = new RouteCooldowns(new MemoryRouteHealth(), null);
    for (let at = 0; at < 10; at++) await cooldowns.failed("r", at, undefined);
    expect(cooldowns.standing("r", 11)).toBe("open");
  });
});
