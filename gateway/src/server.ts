import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { ConfigStatus, Scope } from "@gateway-keys/contract";
import { createApp, type AppDependencies } from "./app";
import { createProvisioningKey } from "./keys/provisioning";
import { openSqliteStore, type SqliteStoreOptions } from "./store/sqlite/sqlite-store";
import { openPostgresStore, type PostgresStoreOptions } from "./store/postgres/postgres-store";
import type { Store } from "./store/types";
import { cooldownPolicyOf, type GatewayConfig } from "./models/upstream-config";
import { upstreamCatalog, type UpstreamCatalog } from "./models/upstream-catalog";
import { configVersion, LiveConfig, servedModels } from "./models/live-config";
import { listenForMetrics, type MetricsListener } from "./ops/metrics-listener";
import { GatewayMetrics } from "./ops/metrics";
import { DEFAULT_DRAIN_TIMEOUT_MS } from "./ops/shutdown";
import { otlpTracerProvider, tracingWanted } from "./telemetry/otlp-export";
import { packageVersion } from "./routes/public";

/** Options of {@link startGateway}: where to listen and what to serve, plus every app option. */
export interface StartGatewayOptions extends Omit<AppDependencies, "store"> {
  /** Default 0: an ephemeral port, read it back from `url`. */
  port?: number;
  /** Default `127.0.0.1`: loopback only, unless you mean otherwise. */
  host?: string;
  /** SQLite file, or `":memory:"` (the default). Ignored when `store` is given. */
  dbPath?: string;
  /** Options of the SQLite store opened for `dbPath`. */
  storeOptions?: SqliteStoreOptions;
  /**
   * A PostgreSQL database (`postgres://USER:PASSWORD@HOST:PORT/DB`) instead of SQLite, which many
   * gateway processes may share (docs/operators/postgresql.md#postgresql-and-many-processes). Not with `dbPath`.
   * Every process needs the same `encryptionKey` (or `GATEWAY_ENCRYPTION_KEY`).
   */
  databaseUrl?: string;
  /** Options of the PostgreSQL store opened for `databaseUrl`. */
  postgresOptions?: PostgresStoreOptions;
  /** A store you opened; the gateway will not close it. */
  store?: Store;
  /**
   * Upstream providers and the models forwarded to them (see `loadGatewayConfig`). They are served
   * beside the built-in models; a configured id replaces a built-in one.
   */
  config?: GatewayConfig;
  /**
   * The config file to serve instead of `config`, read as `loadGatewayConfig` reads it; it can be
   * reloaded without a restart (`reloadConfig`, and `watchConfig`).
   */
  configPath?: string;
  /** Reloads `configPath` whenever the file changes (docs/operators/routing.md#reloading-the-config). */
  watchConfig?: boolean;
  /** Creates a provisioning key for this owner at start; its secret is returned once. */
  bootstrap?: { ownerId: string; scopes?: readonly Scope[] };
  /**
   * Serves Prometheus metrics at `GET /metrics` on this port of `metricsHost`, apart from the
   * public listener (0: an ephemeral port, read it back from `metricsUrl`). Default: no metrics listener.
   */
  metricsPort?: number;
  /** Default: `host`. */
  metricsHost?: string;
  /**
   * Export spans over OTLP/HTTP (docs/operators/operations.md#traces): `endpoint` is a receiver's
   * base URL (`http://collector:4318`); without it the standard `OTEL_EXPORTER_OTLP_ENDPOINT` /
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` variables decide, and neither set means no export.
   * Ignored when `tracerProvider` is given.
   */
  otel?: { endpoint?: string };
  /** How long `close()` lets requests in flight (streams included) finish before cutting them. Default 30 000 ms. */
  drainTimeoutMs?: number;
  /** How long `close()` keeps accepting, with `/readyz` answering 503, before it stops: time for a load balancer to notice. Default 0. */
  shutdownDelayMs?: number;
}

/** A listening gateway. */
export interface RunningGateway {
  /** Base URL, e.g. `http://127.0.0.1:43817`. */
  url: string;
  port: number;
  /** The bootstrap provisioning key's secret, when `bootstrap` was asked for. */
  provisioningKey?: string;
  /** The bootstrap owner. */
  ownerId?: string;
  /** The metrics listener's base URL (scrape `${metricsUrl}/metrics`), when `metricsPort` was given. */
  metricsUrl?: string;
  store: Store;
  app: FastifyInstance;
  /**
   * Re-reads `configPath` (what SIGHUP does): a valid file is served from the next request on, an
   * invalid one refused and the running config kept; resolves with the config's status after it.
   * Absent without `configPath`.
   */
  reloadConfig?: () => Promise<ConfigStatus>;
  /**
   * Shuts down gracefully (see `app.gateway.drain`): not ready at once, then stops accepting, lets
   * requests in flight finish up to `drainTimeoutMs`, closes the metrics listener, and closes the
   * store if the gateway opened it.
   */
  close(): Promise<void>;
}

/**
 * Opens the store, optionally creates a provisioning key, and listens. Defaults suit tests and
 * demos: an in-memory database on an ephemeral loopback port.
 */
export async function startGateway(options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const { port = 0, host = "127.0.0.1", dbPath, storeOptions, databaseUrl, postgresOptions, bootstrap, store: givenStore, config, configPath, watchConfig, ...rest } = options;
  const { metricsPort, metricsHost = host, drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS, shutdownDelayMs = 0, otel, ...appOptions } = rest;
  // Made here, not by the app, so the upstream providers report into the same registry.
  const metrics = appOptions.metrics ?? new GatewayMetrics();
  // Before the store: a sampler variable that names nothing known fails the start with nothing to close.
  const ownTracer =
    appOptions.tracerProvider === undefined && tracingWanted({ endpoint: otel?.endpoint })
      ? otlpTracerProvider({ endpoint: otel?.endpoint, serviceVersion: packageVersion(), onDropped: (count, reason) => metrics.spansDropped(count, reason) })
      : undefined;
  if (ownTracer) appOptions.tracerProvider = ownTracer;
  if (databaseUrl !== undefined && dbPath !== undefined) throw new Error("give either dbPath (SQLite) or databaseUrl (PostgreSQL), not both");
  // Opened first: a database that cannot be reached leaves nothing else to close.
  const store =
    givenStore ?? (databaseUrl !== undefined ? await openPostgresStore(databaseUrl, postgresOptions) : openSqliteStore(dbPath ?? ":memory:", storeOptions));
  if (config && configPath !== undefined) throw new Error("give either config or configPath, not both");
  let live: LiveConfig | undefined;
  let upstream: UpstreamCatalog | undefined;
  try {
    live = configPath === undefined ? undefined : new LiveConfig(configPath, process.env, metrics);
    upstream = config ? upstreamCatalog(config, process.env, metrics) : undefined;
  } catch (error) {
    if (!givenStore) await store.close();
    throw error;
  }
  if (upstream) {
    appOptions.models ??= servedModels(upstream);
    appOptions.cooldown ??= cooldownPolicyOf(config!);
    const status: ConfigStatus = { version: configVersion(config!), loadedAt: new Date().toISOString(), lastReload: null };
    appOptions.configStatus ??= () => status;
  }
  if (live) {
    appOptions.models ??= live.models;
    appOptions.cooldown ??= live.cooldown;
    appOptions.configStatus ??= () => live!.status();
  }
  const closeStore = async () => {
    await upstream?.close();
    await live?.close();
    // Sends the spans still queued (bounded by the exporter's timeout: a receiver that is down delays the stop, never blocks it).
    await ownTracer?.shutdown().catch(() => undefined);
    if (!givenStore) await store.close();
  };
  let app: FastifyInstance | undefined;
  let metricsListener: MetricsListener | undefined;
  try {
    const created = bootstrap
      ? await createProvisioningKey(store, { ownerId: bootstrap.ownerId, scopes: bootstrap.scopes, clock: appOptions.clock })
      : undefined;
    app = createApp({ ...appOptions, metrics, store });
    const serving = app;
    live?.applyTo((models, cooldown) => serving.gateway.replaceModels(models, cooldown));
    if (watchConfig && live) live.watch((status) => serving.log.info({ config: status }, "config file changed: reloaded"));
    await app.listen({ port, host });
    if (metricsPort !== undefined) metricsListener = await listenForMetrics(metrics.registry, metricsPort, metricsHost);
    const metricsOn = metricsListener;
    const listening = app;
    const address = app.server.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return {
      url: `http://${shownHost}:${address.port}`,
      port: address.port,
      ...(created ? { provisioningKey: created.secret, ownerId: created.ownerId } : {}),
      ...(metricsOn ? { metricsUrl: metricsOn.url } : {}),
      store,
      app: listening,
      ...(live && { reloadConfig: () => live!.reload() }),
      close: async () => {
        try {
          await listening.gateway.drain({ timeoutMs: drainTimeoutMs, delayMs: shutdownDelayMs });
        } finally {
          // Scrapes still answer during the drain; the store closes last, once nothing uses it.
          await metricsOn?.close();
          await closeStore();
        }
      },
    };
  } catch (error) {
    await metricsListener?.close();
    await app?.close();
    await closeStore();
    throw error;
  }
}
