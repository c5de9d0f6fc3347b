import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Time to first byte, in seconds: from a fast deployment's 50 ms to a slow one's minute. */
const ROUTE_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How a route's attempt ended, as the `outcome` label. */
export type RouteOutcome = "answered" | "failed" | "rate_limited";

/**
 * The routing's metrics (docs/operators/routing.md#what-is-seen), per route (`provider/model`, names
 * from the config): attempts by outcome, time to first byte, routes passed over (quota full,
 * cooling down), cooldowns begun, quota headroom, routes cooling now; and the config's version
 * and reloads. Series are bound once per label set, as GatewayMetrics binds its own.
 */
export class RouteMetrics {
  readonly #attempts: Counter<"route" | "outcome">;
  readonly #latency: Histogram<"route">;
  readonly #skipped: Counter<"route" | "reason">;
  readonly #cooldowns: Counter<"route">;
  readonly #headroom: Gauge<"route" | "quota">;
  readonly #configInfo: Gauge<"version">;
  readonly #reloads: Counter<"result">;
  readonly #series = new Map<string, { inc(): void }>();
  readonly #latencySeries = new Map<string, { observe(value: number): void }>();
  readonly #registry: Registry;

  constructor(registry: Registry) {
    this.#registry = registry;
    const registers = [registry];
    this.#attempts = new Counter({
      name: "gateway_route_attempts_total",
      help: "Attempts on each route, by outcome: answered, failed (timeout, reset, 5xx, refused credentials), rate_limited (the provider's 429).",
      labelNames: ["route", "outcome"] as const,
      registers,
    });
    this.#latency = new Histogram({
      name: "gateway_route_time_to_first_byte_seconds",
      help: "Time from an attempt's start to its answer (a stream's first piece) or its failure, by route.",
      labelNames: ["route"] as const,
      buckets: ROUTE_LATENCY_BUCKETS,
      registers,
    });
    this.#skipped = new Counter({
      name: "gateway_route_skipped_total",
      help: "Requests that passed a route over without sending it anything, by reason: quota (its requestsPerMinute or tokensPerMinute was full), cooling (it is cooling down).",
      labelNames: ["route", "reason"] as const,
      registers,
    });
    this.#cooldowns = new Counter({
      name: "gateway_route_cooldowns_total",
      help: "Cooldowns this process saw begin, by route.",
      labelNames: ["route"] as const,
      registers,
    });
    this.#headroom = new Gauge({
      name: "gateway_route_quota_remaining",
      help: "What a route's quota had left at its last admission in this process, by quota: requests, tokens.",
      labelNames: ["route", "quota"] as const,
      registers,
    });
    this.#configInfo = new Gauge({
      name: "gateway_config_info",
      help: "1 for the version (a digest of the file) of the --config in use.",
      labelNames: ["version"] as const,
      registers,
    });
    this.#reloads = new Counter({
      name: "gateway_config_reloads_total",
      help: "Reloads of --config (SIGHUP or the file watch), by result: applied, refused (the file is not valid; the running config is kept).",
      labelNames: ["result"] as const,
      registers,
    });
  }

  #count(key: string, make: () => { inc(): void }): void {
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = make()));
    series.inc();
  }

  attempt(route: string, outcome: RouteOutcome, seconds: number): void {
    this.#count(`a ${outcome} ${route}`, () => this.#attempts.labels({ route, outcome }));
    let latency = this.#latencySeries.get(route);
    if (!latency) this.#latencySeries.set(route, (latency = this.#latency.labels({ route })));
    latency.observe(seconds);
  }

  skipped(route: string, reason: "quota" | "cooling"): void {
    this.#count(`s ${reason} ${route}`, () => this.#skipped.labels({ route, reason }));
  }

  cooled(route: string): void {
    this.#count(`c ${route}`, () => this.#cooldowns.labels({ route }));
  }

  quotaRemaining(route: string, quota: "requests" | "tokens", remaining: number): void {
    this.#headroom.set({ route, quota }, remaining);
  }

  /** Exports the routes cooling down now (1) per this process's view, read at each scrape. */
  observeCooling(cooling: () => ReadonlyMap<string, number>): void {
    new Gauge({
      name: "gateway_route_cooling",
      help: "1 for each route cooling down or waiting for its probe to answer, as this process sees it.",
      labelNames: ["route"] as const,
      registers: [this.#registry],
      collect() {
        this.reset();
        for (const route of cooling().keys()) this.set({ route }, 1);
      },
    });
  }

  /** The config in use is `version`; `result` the outcome of a reload (none at start). */
  config(version: string, result?: "applied" | "refused"): void {
    if (result) this.#reloads.inc({ result });
    if (result === "refused") return;
    this.#configInfo.reset();
    this.#configInfo.set({ version }, 1);
  }
}
