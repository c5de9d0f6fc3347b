import fastifyCompress from "@fastify/compress";
import Fastify, { type FastifyInstance } from "fastify";
import { KeyCache } from "./store/key-cache";
import { TeamCache } from "./store/team-cache";
import { consoleRoutes, type ConsoleSignIn } from "./console/routes";
import type { GatewayContext } from "./context";
import { ReplyCipher } from "./crypto";
import { resolveEncryptionKey } from "./encryption-key";
import { handleFrameworkError, installErrorHandling } from "./http/error-handler";
import { installJsonBodyParser } from "./http/json-body";
import { loggerOptions, type LoggerSetting } from "./http/request-log";
import { installZodValidation } from "./http/validation";
import { ModelCatalog, type CatalogModel } from "./models/catalog";
import { runMaintenance, scheduleMaintenance, type MaintenanceResult } from "./policies/retention";
import { ledgerFor, rateLimitsFor } from "./metering";
import { observedLedger } from "./ops/observed-ledger";
import { CredentialThrottle, type RateLimitOptions } from "./http/credential-throttle";
import { accountKeyRoutes } from "./routes/account-keys";
import { bulkRotationRoutes } from "./routes/bulk-rotation";
import { auditEventRoutes } from "./routes/audit-events";
import { webhookRoutes } from "./routes/webhooks";
import { teamRoutes } from "./routes/teams";
import { mediaRoutes } from "./routes/media";
import { publicRoutes } from "./routes/public";
import { textGenerationRoutes } from "./routes/text-generation";
import { usageRoutes } from "./routes/usage";
import { whoamiRoutes } from "./routes/whoami";
import type { Store } from "./store/types";
import { healthRoutes } from "./ops/health-routes";
import { GatewayMetrics } from "./ops/metrics";
import { registerOpenApi } from "./ops/openapi";
import { trackRequests } from "./ops/request-tracking";
import { ServingState } from "./ops/serving-state";
import { drainApp, type DrainOptions, type DrainResult } from "./ops/shutdown";
import { packageVersion } from "./routes/public";
import { scanTimedAlerts } from "./webhooks/alert-scan";
import { scanPreviousSecrets } from "./webhooks/previous-secret-scan";
import { GatewayTracing } from "./telemetry/tracing";
import { traceRequests } from "./telemetry/request-spans";
import type { TracerProvider } from "@opentelemetry/api";
import { DEFAULT_SECRET_USE_FLUSH_MS, SecretUseTracker } from "./keys/secret-use-tracker";
import { alertingLedger, BudgetAlerts } from "./webhooks/budget-alerts";
import { TeamBudgetAlerts, teamAlertingLedger } from "./webhooks/team-budget-alerts";
import { WebhookDeliverer, type DelivererOptions } from "./webhooks/deliverer";

/** Request bodies above this are refused with 413 `payload_too_large`. */
export const BODY_LIMIT_BYTES = 64 * 1024;
/** How long a completed idempotent reply is replayed, unless configured: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;


/** What {@link createApp} needs. Only `store` is required. */
export interface AppDependencies {
  /** Where keys, logs and idempotency records live (see `openSqliteStore`). */
  store: Store;
  /** The clock every timestamp, expiry, retention and rate limit reads; tests move it. Default: system time. */
  clock?: () => Date;
  /** Default `false` (silent), which suits tests and embedding. */
  logger?: LoggerSetting;
  /** Lifetime of stored idempotent replies. Default 24 h. */
  idempotencyTtlMs?: number;
  /** Per-credential token bucket. Default 200 requests/s, burst 1000. */
  rateLimit?: RateLimitOptions;
  /**
   * Key (32 bytes, or its base64/hex text) that encrypts stored replies. Default: the
   * `GATEWAY_ENCRYPTION_KEY` variable, else a `<db>.key` file beside the database (mode 0600),
   * else, for an in-memory store, a random key for the life of the process.
   */
  encryptionKey?: Buffer | string;
  /** How often expired logs and idempotency records are purged. Default 60 000 ms; 0 turns the timer off. */
  maintenanceIntervalMs?: number;
  /** The models served. Default: the built-in deterministic models (docs/operators/providers/built-in.md#built-in-models). */
  models?: readonly CatalogModel[];
  /** Where the app's Prometheus metrics go. Default: a registry of its own (`app.gateway.metrics`). */
  metrics?: GatewayMetrics;
  /**
   * Serve the read-only web console at `/console` (docs/console.md): `true` (provisioning-key
   * sign-in), or how it signs people in (OpenID Connect, the key sign-in turned off). Default
   * `false`: an admin surface is opened only when asked (`gateway serve --console`).
   */
  console?: boolean | ConsoleSignIn;
  /** Webhook delivery and alerts (docs/api/audit-and-webhooks.md#webhook-endpoints); defaults fit production. */
  webhooks?: WebhookOptions;
  /**
   * Which proxies' `X-Forwarded-For` to believe for a client's address (Fastify's `trustProxy`:
   * true, a hop count, or addresses and CIDR ranges). Default off: the address is the TCP peer's.
   * It is the address shown among a secret's clients (extension `secret_use`) and the bucket of
   * anonymous callers' rate limit.
   */
  trustProxy?: boolean | number | string | string[];
  /**
   * Where this gateway's spans go (docs/operators/operations.md#traces): a tracer provider, such as
   * `gateway serve --otel-endpoint` builds, or your application's (`trace.getTracerProvider()`).
   * Default: none, and tracing is off.
   */
  tracerProvider?: TracerProvider;
  /** Extension `secret_use` (docs/api/keys.md#which-secret-is-in-use-extension-secret_use): how each secret's use is tracked. */
  secretUse?: SecretUseOptions;
}

/** How this process tracks which secret of each key is used. */
export interface SecretUseOptions {
  /**
   * How often this process adds the use it saw to the database, and then checks previous secrets
   * for idle retirement, expiry and the in-use warning. Default 2000 ms. Give every process sharing
   * a database the same value: a secret counts as idle only once it has gone unused for its
   * `retireWhenIdleSeconds` plus twice this, so a use still in another process's memory never retires it.
   */
  flushIntervalMs?: number;
  /**
   * Default true. False counts nothing (the key record shows no use, no previous secret retires
   * idle or is reported in use): the baseline a benchmark measures the tracking's cost against.
   */
  track?: boolean;
}

/** How this process takes part in webhooks. */
export interface WebhookOptions extends DelivererOptions {
  /** Deliver the outbox from this process. Default true (with PostgreSQL, every process may: deliveries are leased). */
  deliver?: boolean;
  /** How often keys are scanned for `key.expiring`, `key.expired` and `key.rotation_due`. Default 60 000 ms; 0: never. */
  scanIntervalMs?: number;
  /** How stale this process's estimate of a key's window spend may get before a charge re-reads it. Default 1000 ms. */
  budgetRefreshMs?: number;
}

/** Operations on a running app beyond HTTP. */
export interface GatewayControls {
  /** Purges expired request logs and idempotency records now, at the injected clock's time. */
  runMaintenance(): Promise<MaintenanceResult>;
  /**
   * Shuts the app down gracefully: `/readyz` answers 503 at once, the listener stops accepting,
   * requests in flight (streams included) finish up to the timeout, then the app closes. The
   * store stays open: close it after this resolves.
   */
  drain(options?: DrainOptions): Promise<DrainResult>;
  /** The app's Prometheus metrics; `startGateway({ metricsPort })` serves them. */
  readonly metrics: GatewayMetrics;
  /** Runs one pass of the webhook deliverer now (tests; the timer does it otherwise); resolves with the deliveries attempted. */
  deliverWebhooks(): Promise<number>;
  /** Runs one pass of the expiry and rotation scan (and the previous-secret scan) now; resolves with the alerts sent. */
  scanAlerts(): Promise<number>;
  /** Adds the secret use this process saw to the database now, then checks previous secrets (extension `secret_use`); resolves with the events sent. */
  flushSecretUse(): Promise<number>;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Gateway operations beyond HTTP; see {@link GatewayControls}. */
    gateway: GatewayControls;
  }
}

/** Trusts the `hops` proxies nearest to the gateway. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * Builds the gateway as a Fastify app: the account API, the model endpoints and the public
 * endpoints, over the given store and clock. It does not listen; call `listen` (or use
 * `startGateway`) or `inject`. Closing the app stops its timers but leaves the store open: the
 * caller opened it, the caller closes it.
 */
export function createApp(deps: AppDependencies): FastifyInstance {
  const clock = deps.clock;
  // Without an injected clock, no Date is made per reading.
  const now = clock ? () => clock().getTime() : Date.now;
  const consoleSignIn: ConsoleSignIn = typeof deps.console === "object" ? deps.console : {};
  if (consoleSignIn.provisioningKey === false && !consoleSignIn.oidc) {
    throw new Error("the console's provisioning-key sign-in is off and no OpenID Connect sign-in is configured: nobody could sign in");
  }
  const ctx: GatewayContext = {
    store: deps.store,
    now,
    cipher: new ReplyCipher(resolveEncryptionKey(deps.encryptionKey, deps.store)),
    idempotencyTtlMs: deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
    credentialThrottle: new CredentialThrottle(deps.rateLimit),
    models: new ModelCatalog(deps.models, Math.floor(now() / 1000)),
    keys: new KeyCache(deps.store),
    teams: new TeamCache(deps.store),
    secretUse: new SecretUseTracker(deps.store, deps.secretUse?.track !== false),
    spend: ledgerFor(deps.store),
    rates: rateLimitsFor(deps.store),
    tracing: new GatewayTracing(deps.tracerProvider, packageVersion()),
    consoleEnabled: deps.console !== undefined && deps.console !== false,
    consoleKeySignIn: consoleSignIn.provisioningKey !== false,
    consoleOidcSignIn: consoleSignIn.oidc !== undefined,
  };

  const metrics = deps.metrics ?? new GatewayMetrics();
  const webhookOptions = deps.webhooks ?? {};
  const budgetAlerts = new BudgetAlerts(deps.store, now, webhookOptions.budgetRefreshMs);
  ctx.spend = alertingLedger(ctx.spend, budgetAlerts);
  const teamAlerts = new TeamBudgetAlerts(deps.store, ctx.teams, now);
  ctx.spend = teamAlertingLedger(ctx.spend, teamAlerts);
  ctx.spend = observedLedger(ctx.spend, metrics, (id) => ctx.models.get(id) !== undefined);
  const deliverer = new WebhookDeliverer(deps.store, ctx.cipher, now, metrics, webhookOptions);
  budgetAlerts.onSent = () => deliverer.nudge();
  teamAlerts.onSent = () => deliverer.nudge();
  metrics.observeWebhookBacklog(() => deps.store.transaction((tx) => tx.events.deliveryBacklog()), now);
  if (deps.store.poolStats) metrics.observePool(() => deps.store.poolStats!());
  const serving = new ServingState();
  const secretUseMs = deps.secretUse?.flushIntervalMs ?? DEFAULT_SECRET_USE_FLUSH_MS;
  const scanPrevious = () => scanPreviousSecrets(deps.store, now(), { forget: (keyId) => ctx.keys.forget(keyId), unflushedMs: 2 * secretUseMs });

  const app = Fastify({
    logger: loggerOptions(deps.logger ?? false),
    bodyLimit: BODY_LIMIT_BYTES,
    // Requests that arrive while closing are still served: the store stays open until close ends.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // `/v1/account/api-keys/` is `/v1/account/api-keys`, on every route alike.
    routerOptions: { ignoreTrailingSlash: true },
    // A bad percent-encoding or an over-long path parameter leaves as our envelope too.
    frameworkErrors: (error, request, reply) => handleFrameworkError(error, request, reply),
    // A hop count as the function Fastify makes of one (its types take no number).
    trustProxy: typeof deps.trustProxy === "number" ? trustHops(deps.trustProxy) : (deps.trustProxy ?? false),
  });
  app.decorateRequest("account", null);
  app.decorateRequest("apiKey", null);
  app.decorateRequest("idempotencyKey", null);
  app.decorate("gateway", {
    runMaintenance: () => runMaintenance(ctx),
    drain: (options) => drainApp(app, serving, options),
    metrics,
    deliverWebhooks: () => deliverer.runOnce(),
    scanAlerts: async () => (await scanTimedAlerts(deps.store, now())) + (await scanPrevious()),
    flushSecretUse: async () => {
      await ctx.secretUse.flush();
      return scanPrevious();
    },
  } satisfies GatewayControls);

  // JSON only: a text/plain body would otherwise reach validation as a string.
  app.removeContentTypeParser("text/plain");
  installJsonBodyParser(app);
  installZodValidation(app);
  installErrorHandling(app);
  trackRequests(app, metrics, serving);
  traceRequests(app, ctx.tracing);
  // Before every route: the document sees only routes registered after it.
  registerOpenApi(app, packageVersion());

  app.register(healthRoutes, { store: deps.store, serving });
  // Off unless a route asks (route-table.ts: the account reads), for clients that accept it.
  app.register(fastifyCompress, { global: false });
  // Every route below is declared once, in the contract's table (contract/src/routes.ts).

  app.register(publicRoutes, { ctx });
  app.register(textGenerationRoutes, { ctx });
  app.register(mediaRoutes, { ctx });
  app.register(accountKeyRoutes, { ctx });
  app.register(bulkRotationRoutes, { ctx });
  app.register(auditEventRoutes, { ctx });
  app.register(webhookRoutes, { ctx });
  app.register(teamRoutes, { ctx });
  app.register(usageRoutes, { ctx });
  app.register(whoamiRoutes, { ctx });
  if (ctx.consoleEnabled) app.register(consoleRoutes, { ctx, signIn: consoleSignIn });

  app.addHook("onClose", async () => {
    ctx.keys.close();
    ctx.teams.close();
    teamAlerts.close();
  });

  if (webhookOptions.deliver !== false) {
    app.addHook("onReady", async () => deliverer.start());
    // An account change may have put audit events in the outbox: deliver them without waiting for the poll.
    app.addHook("onResponse", async (request, reply) => {
      if (request.method !== "GET" && reply.statusCode < 300 && request.url.startsWith("/v1/account/")) deliverer.nudge();
    });
  }
  // Stopped before the store closes: an attempt in flight records its outcome first.
  app.addHook("onClose", async () => {
    budgetAlerts.close();
    await deliverer.stop();
  });
  const scanMs = webhookOptions.scanIntervalMs ?? 60_000;
  if (scanMs > 0) {
    let scan: NodeJS.Timeout | undefined;
    app.addHook("onReady", async () => {
      scan = setInterval(() => void scanTimedAlerts(deps.store, now()).catch((error: unknown) => app.log.warn({ err: error }, "alert scan failed")), scanMs);
      scan.unref();
    });
    app.addHook("onClose", async () => clearInterval(scan));
  }

  // Extension secret_use: flush, then check previous secrets, every interval; a last flush on close
  // (before the store closes), so a graceful stop loses nothing.
  let secretUseTimer: NodeJS.Timeout | undefined;
  const secretUseTick = async () => {
    await ctx.secretUse.flush();
    const sent = await scanPrevious();
    if (sent > 0) deliverer.nudge();
  };
  app.addHook("onReady", async () => {
    secretUseTimer = setInterval(() => void secretUseTick().catch((error: unknown) => app.log.warn({ err: error }, "secret use flush failed")), secretUseMs);
    secretUseTimer.unref();
  });
  app.addHook("onClose", async () => {
    clearInterval(secretUseTimer);
    await ctx.secretUse.flush().catch((error: unknown) => app.log.warn({ err: error }, "secret use flush failed"));
  });

  const intervalMs = deps.maintenanceIntervalMs ?? 60_000;
  if (intervalMs > 0) {
    let stop: (() => void) | undefined;
    app.addHook("onReady", async () => {
      stop = scheduleMaintenance(ctx, intervalMs, app.log);
    });
    app.addHook("onClose", async () => stop?.());
  }
  return app;
}
