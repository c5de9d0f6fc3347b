import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RequestOutcome, StorePoolStats } from "../store/types";

/** How an upstream attempt ended, as the `outcome` label of `gateway_upstream_request_duration_seconds`. */
export type UpstreamOutcome = "ok" | "error_status" | "timeout" | "failed";

/** What the spend-reservation gauges read when scraped. */
export interface ReservationFigures {
  /** Reservations held by requests in flight in this process. */
  count: number;
  /** Their total, in micro-units of credit. */
  micros: bigint;
}

/** Latency buckets in seconds: from a cached key look-up (1 ms) to a long stream (2 min). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The gateway's Prometheus metrics, in a registry of their own: two gateways in one process (tests
 * do that) never share or clash over a metric. Labels are bounded and never carry a secret, a raw
 * URL or a client-chosen string: routes are Fastify's route patterns, models are catalog ids.
 * docs/operators/operations.md#metrics lists every metric and label.
 */
export class GatewayMetrics {
  /** Everything this gateway exports; serve it with `registry.metrics()`. */
  readonly registry = new Registry();

  readonly #httpRequests = new Counter({
    name: "gateway_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: "gateway_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its answer (a stream's last byte), by method, route pattern and status code.",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #httpInFlight = new Gauge({
    name: "gateway_http_requests_in_flight",
    help: "HTTP requests (streams included) being answered now.",
    registers: [this.registry],
  });
  readonly #upstreamDuration = new Histogram({
    name: "gateway_upstream_request_duration_seconds",
    help: "Time from sending a request to an upstream provider until its response headers (or the failure), by provider and outcome.",
    labelNames: ["provider", "outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #droppedSpans = new Counter({
    name: "gateway_trace_spans_dropped_total",
    help: "Spans that never reached the trace receiver, by reason: queue_full (the export queue was full, as while the receiver is down) or the failed export's error.",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  readonly #modelRequests = new Counter({
    name: "gateway_model_requests_total",
    help: 'Model requests recorded, by model id ("unknown" for an id no model has) and outcome (succeeded, rejected, failed).',
    labelNames: ["model", "outcome"] as const,
    registers: [this.registry],
  });

  readonly #teamRequests = new Counter({
    name: "gateway_team_requests_total",
    help: "Model requests of keys in a team, by team id and outcome (succeeded, rejected, failed).",
    labelNames: ["team", "outcome"] as const,
    registers: [this.registry],
  });
  readonly #teamSpent = new Counter({
    name: "gateway_team_spent_units_total",
    help: "Credits charged to each team (its keys' charges while members), by team id, as this process recorded them.",
    labelNames: ["team"] as const,
    registers: [this.registry],
  });

  readonly #webhookAttempts = new Counter({
    name: "gateway_webhook_deliveries_total",
    help: "Webhook delivery attempts, by outcome: sent (the endpoint answered 2xx), retried (it will be tried again), failed (given up).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly #webhookLag = new Histogram({
    name: "gateway_webhook_delivery_lag_seconds",
    help: "Time from an event's creation to its successful delivery, retries included.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 14_400, 43_200],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The outbox's backlog, read from the database at each scrape: deliveries pending (retries
   * included) and the age of the oldest, the lag a receiver sees at worst right now.
   */
  observeWebhookBacklog(read: () => Promise<{ pending: number; oldestCreatedAt: number | null }>, now: () => number): void {
    let last: Promise<{ pending: number; oldestCreatedAt: number | null }> | undefined;
    const backlog = () => (last ??= read().finally(() => setImmediate(() => (last = undefined))));
    new Gauge({
      name: "gateway_webhook_deliveries_pending",
      help: "Webhook deliveries not yet delivered nor failed (across every process sharing the database).",
      registers: [this.registry],
      async collect() {
        this.set((await backlog().catch(() => ({ pending: 0, oldestCreatedAt: null }))).pending);
      },
    });
    new Gauge({
      name: "gateway_webhook_oldest_pending_seconds",
      help: "Age of the oldest pending webhook delivery; 0 with none.",
      registers: [this.registry],
      async collect() {
        const { oldestCreatedAt } = await backlog().catch(() => ({ pending: 0, oldestCreatedAt: null }));
        this.set(oldestCreatedAt === null ? 0 : Math.max(0, (now() - oldestCreatedAt) / 1000));
      },
    });
  }

  /** One webhook delivery attempt's outcome; a sent one also records its lag since the event was made. */
  webhookAttempt(outcome: "sent" | "retried" | "failed", lagSeconds?: number): void {
    this.#webhookAttempts.inc({ outcome });
    if (outcome === "sent" && lagSeconds !== undefined) this.#webhookLag.observe(lagSeconds);
  }

  /**
   * The counter and histogram of each (method, route, status), bound once: prom-client hashes a
   * label object on every call, which costs a request more than the rest of its metrics together
   * (bench/gateway measures the request path).
   */
  readonly #httpSeries = new Map<string, { count: { inc(): void }; duration: { observe(value: number): void } }>();

  /** One HTTP request answered (or cut) after `seconds`. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#httpSeries.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { count: this.#httpRequests.labels(labels), duration: this.#httpDuration.labels(labels) };
      this.#httpSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  /** A request started (+1) or ended (-1). */
  httpInFlight(change: 1 | -1): void {
    this.#httpInFlight.inc(change);
  }

  /** The upstream histogram of each (provider, outcome), bound once (as {@link httpRequest}'s). */
  readonly #upstreamSeries = new Map<string, { observe(value: number): void }>();
  /** The model counter of each (model, outcome), bound once. */
  readonly #modelSeries = new Map<string, { inc(): void }>();
  /** A team's series, by team id and outcome: labelled once, as the model's are. */
  readonly #teamSeries = new Map<string, { requests: { inc(): void }; spent: { inc(value: number): void } }>();

  /** One attempt at an upstream provider. */
  upstreamRequest(provider: string, outcome: UpstreamOutcome, seconds: number): void {
    const key = `${outcome} ${provider}`;
    let series = this.#upstreamSeries.get(key);
    if (!series) this.#upstreamSeries.set(key, (series = this.#upstreamDuration.labels({ provider, outcome })));
    series.observe(seconds);
  }

  /** `count` spans the trace exporter gave up on (docs/operators/operations.md#traces). */
  spansDropped(count: number, reason: string): void {
    this.#droppedSpans.inc({ reason }, count);
  }

  /** One model request recorded with its outcome; `model` must already be a known id or `"unknown"`. */
  modelRequest(model: string, outcome: RequestOutcome): void {
    const key = `${outcome} ${model}`;
    let series = this.#modelSeries.get(key);
    if (!series) this.#modelSeries.set(key, (series = this.#modelRequests.labels({ model, outcome })));
    series.inc();
  }

  /** One model request of a key in team `teamId` recorded with its outcome and charge. */
  teamRequest(teamId: string, outcome: RequestOutcome, costMicros: bigint): void {
    const key = `${outcome} ${teamId}`;
    let series = this.#teamSeries.get(key);
    if (!series) {
      series = { requests: this.#teamRequests.labels({ team: teamId, outcome }), spent: this.#teamSpent.labels({ team: teamId }) };
      this.#teamSeries.set(key, series);
    }
    series.requests.inc();
    if (costMicros > 0n) series.spent.inc(Number(costMicros) / 1_000_000);
  }

  /** Exports the spend reservations in flight, read from `figures` at each scrape. */
  observeReservations(figures: () => ReservationFigures): void {
    new Gauge({
      name: "gateway_spend_reservations_in_flight",
      help: "Spend reservations held by model requests in flight in this process.",
      registers: [this.registry],
      collect() {
        this.set(figures().count);
      },
    });
    new Gauge({
      name: "gateway_spend_reserved_units",
      help: "Credits held by those reservations, in units.",
      registers: [this.registry],
      collect() {
        // Micro-units to units; a gauge is a double, so exactness past 2^53 micros is not needed here.
        this.set(Number(figures().micros) / 1_000_000);
      },
    });
  }

  /** Exports a connection pool's figures, read from `stats` at each scrape. Call only for a store with a pool. */
  observePool(stats: () => StorePoolStats): void {
    new Gauge({
      name: "gateway_db_pool_connections",
      help: "Database connections of the store's pool, by state (total, idle).",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect() {
        const now = stats();
        this.set({ state: "total" }, now.total);
        this.set({ state: "idle" }, now.idle);
      },
    });
    new Gauge({
      name: "gateway_db_pool_waiting",
      help: "Queries waiting for a connection of the store's pool.",
      registers: [this.registry],
      collect() {
        this.set(stats().waiting);
      },
    });
  }
}
