#!/usr/bin/env node
/**
 * The `gateway` command:
 *   gateway serve [--port 8787] [--host 127.0.0.1] [--db ./gateway.db | --database postgres://…] [--bootstrap --owner ID]
 *                 [--metrics-port N] [--otel-endpoint URL] [--drain-timeout 30] [--shutdown-delay 0] [--encryption-key-file FILE]
 *   gateway provisioning-key create (--db FILE | --database postgres://…) --owner ID [--scopes keys:read,keys:write,usage:read]
 *   gateway keys rotate --label team=search [--dry-run | --secrets-file FILE] [--grace 1h]   (over HTTP: GATEWAY_BASE_URL, GATEWAY_PROVISIONING_KEY)
 * `--database` may come from GATEWAY_DATABASE_URL instead, which keeps the password out of `ps`; the
 * options a container sets (host, port, config, metrics, drain, log level, key file) have variables
 * too (`serve --help` names them), so an image or a chart configures the gateway by environment.
 * Human-readable lines (and secrets, once) go to stdout; JSON logs go to stderr.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import pino from "pino";
import { SCOPES, type Scope } from "@gateway-keys/contract";
import { verifyAuditChain } from "./audit/chain";
import { BASE_URL_ENV, keysRotate, parseDuration, PROVISIONING_KEY_ENV, type KeysRotateOptions } from "./cli/keys-rotate";
import { createProvisioningKey } from "./keys/provisioning";
import { startGateway } from "./server";
import { loadOidcSettings, OIDC_CLIENT_SECRET_ENV } from "./console/oidc-config";
import { openSqliteStore } from "./store/sqlite/sqlite-store";
import { openPostgresStore } from "./store/postgres/postgres-store";
import { describeDatabaseUrl } from "./store/postgres/connection";
import { ENCRYPTION_KEY_ENV, parseEncryptionKey } from "./encryption-key";
import type { Store } from "./store/types";

/** Where `--database` is read from when not given. */
const DATABASE_URL_ENV = "GATEWAY_DATABASE_URL";
const DEFAULT_DB = "./gateway.db";
/** Where `--encryption-key-file` is read from when not given: the path of a mounted secret. */
const ENCRYPTION_KEY_FILE_ENV = "GATEWAY_ENCRYPTION_KEY_FILE";

interface ServeOptions {
  watchConfig?: boolean;
  console?: boolean;
  consoleOidc?: string;
  consoleKeySignIn: boolean;
  webhookAllowPrivateTargets?: boolean;
  webhookTimeout: number;
  webhookLease: number;
  port: number;
  host: string;
  db?: string;
  database?: string;
  spendLeaseMs: number;
  databasePoolSize: number;
  databaseTimeout: number;
  bootstrap?: boolean;
  owner?: string;
  scopes: Scope[];
  logLevel: string;
  meteringDurability: "normal" | "full";
  config?: string;
  encryptionKeyFile?: string;
  metricsPort?: number;
  metricsHost?: string;
  otelEndpoint?: string;
  drainTimeout: number;
  shutdownDelay: number;
  rateLimit: number;
  rateBurst: number;
  trustProxy: boolean | number | string[];
  secretUseFlush: number;
}

interface CreateKeyOptions {
  db?: string;
  database?: string;
  owner: string;
  scopes: Scope[];
}

async function main(argv: string[]): Promise<void> {
  // commander 15 is ESM-only; this package compiles to CommonJS, where import() still loads ESM.
  const { Command, InvalidArgumentError, Option } = await import("commander");

  const parsePort = (text: string): number => {
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError("expected a port number from 0 to 65535");
    return port;
  };
  const parseLease = (text: string): number => {
    const ms = Number(text);
    if (!/^\d+$/.test(text) || ms < 100) throw new InvalidArgumentError("expected a whole number of milliseconds, at least 100");
    return ms;
  };
  const parsePoolSize = (text: string): number => {
    const size = Number(text);
    if (!/^\d+$/.test(text) || size < 2 || size > 1000) throw new InvalidArgumentError("expected a whole number of connections from 2 to 1000");
    return size;
  };
  const parseTimeout = (text: string): number => {
    const ms = Number(text);
    if (!/^\d+$/.test(text) || ms < 100 || ms > 600_000) throw new InvalidArgumentError("expected a whole number of milliseconds from 100 to 600000");
    return ms;
  };
  const parseSeconds = (text: string): number => {
    const seconds = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || seconds > 86_400) throw new InvalidArgumentError("expected a number of seconds from 0 to 86400, such as 30 or 0.5");
    return seconds;
  };
  // Fastify's trustProxy: on, a hop count, or the proxies' addresses and CIDR ranges.
  const parseTrustProxy = (text: string): boolean | number | string[] => {
    if (text === "true" || text === "false") return text === "true";
    if (/^\d+$/.test(text)) return Number(text);
    const proxies = text.split(",").map((proxy) => proxy.trim()).filter(Boolean);
    if (proxies.length === 0) throw new InvalidArgumentError("expected true, a hop count, or a comma-separated list of proxy addresses or CIDR ranges");
    return proxies;
  };
  const parseHttpUrl = (text: string): string => {
    const url = URL.parse(text);
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) throw new InvalidArgumentError("expected an http:// or https:// URL");
    return text;
  };
  const parseRate = (text: string): number => {
    const rate = Number(text);
    if (!/^\d+$/.test(text) || rate < 1) throw new InvalidArgumentError("expected a whole number of requests, at least 1");
    return rate;
  };
  const parseDurationFlag = (text: string): number => {
    try {
      return parseDuration(text);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
  const parseScopes = (text: string): Scope[] => {
    const scopes = text.split(",").map((scope) => scope.trim()).filter(Boolean);
    const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (scopes.length === 0 || unknown.length > 0) {
      throw new InvalidArgumentError(`expected a comma-separated list of ${SCOPES.join(", ")}`);
    }
    return scopes as Scope[];
  };

  const program = new Command()
    .name("gateway")
    .description("A self-hostable model gateway with API keys managed as code.")
    .showHelpAfterError();

  program
    .command("serve")
    .description("Run the gateway until SIGINT or SIGTERM.")
    .addOption(new Option("--port <port>", "port to listen on (0: any free port)").default(8787).argParser(parsePort).env("GATEWAY_PORT"))
    .addOption(new Option("--host <address>", "address to bind; loopback unless you mean to expose it").default("127.0.0.1").env("GATEWAY_HOST"))
    .option("--db <file>", `SQLite database file, created if missing (default: ${DEFAULT_DB}, unless --database)`)
    .addOption(new Option("--database <url>", "PostgreSQL database shared by many gateway processes: postgres://USER:PASSWORD@HOST:PORT/DB").env(DATABASE_URL_ENV))
    .addOption(
      new Option("--spend-lease-ms <ms>", "with --database: lease of a spend reservation, renewed while its process lives (docs/operators/postgresql.md#postgresql-and-many-processes)")
        .default(30_000)
        .argParser(parseLease),
    )
    .addOption(
      new Option("--database-pool-size <connections>", "with --database: connections this process opens at most (the key-change listener's comes on top)")
        .default(10)
        .argParser(parsePoolSize),
    )
    .addOption(
      new Option(
        "--database-timeout <ms>",
        "how long one database statement may take (PostgreSQL: statement and lock waits; SQLite: waiting for another connection's lock) before the request gets 503 database_unavailable",
      )
        .default(5000)
        .argParser(parseTimeout),
    )
    .option("--bootstrap", "create a provisioning key for --owner and print its secret once")
    .option("--owner <id>", "owner of the bootstrap provisioning key")
    .addOption(new Option("--scopes <list>", "scopes of the bootstrap key").default([...SCOPES], SCOPES.join(",")).argParser(parseScopes))
    .addOption(
      new Option("--log-level <level>", "log level").default("info").choices(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).env("GATEWAY_LOG_LEVEL"),
    )
    .addOption(new Option("--config <file>", "upstream providers and models, YAML or JSON (docs/operators/upstream.md#upstream-providers); SIGHUP reloads it").env("GATEWAY_CONFIG"))
    .addOption(new Option("--watch-config", "reload --config whenever the file changes (docs/operators/routing.md#reloading-the-config)").env("GATEWAY_WATCH_CONFIG"))
    .addOption(
      new Option("--encryption-key-file <file>", `file holding the reply encryption key, as ${ENCRYPTION_KEY_ENV} would (a mounted secret)`).env(
        ENCRYPTION_KEY_FILE_ENV,
      ),
    )
    .addOption(
      new Option("--metering-durability <mode>", "fsync of usage and log writes (see docs/operators/storage.md#storage-durability-and-secrets-at-rest)").default("normal").choices(["normal", "full"]),
    )
    .addOption(new Option("--metrics-port <port>", "serve Prometheus metrics at GET /metrics on this port (default: off)").argParser(parsePort).env("GATEWAY_METRICS_PORT"))
    .addOption(new Option("--metrics-host <address>", "address of the metrics listener (default: --host)").env("GATEWAY_METRICS_HOST"))
    .addOption(
      new Option(
        "--otel-endpoint <url>",
        "export spans over OTLP/HTTP to this receiver (http://collector:4318); default: the OTEL_EXPORTER_OTLP_ENDPOINT variables, else off (docs/operators/operations.md#traces)",
      )
        .argParser(parseHttpUrl)
        .env("GATEWAY_OTEL_ENDPOINT"),
    )
    .option("--console", "serve the read-only web console at /console (docs/console.md; default: off)")
    .addOption(
      new Option(
        "--console-oidc <file>",
        `with --console: sign people in through an OpenID provider, YAML or JSON (docs/deployment.md#console-sign-in-with-openid-connect); the client secret from the file it names or ${OIDC_CLIENT_SECRET_ENV}`,
      ).env("GATEWAY_CONSOLE_OIDC"),
    )
    .option("--no-console-key-sign-in", "with --console-oidc: a provisioning key can no longer sign in to the console (its sessions stop too)")
    .option("--webhook-allow-private-targets", "let webhooks reach loopback, private and link-local addresses (default: refused, against SSRF)")
    .addOption(new Option("--webhook-timeout <seconds>", "bound on one webhook delivery attempt").default(10).argParser(parseSeconds))
    .addOption(new Option("--webhook-lease <seconds>", "how long a delivery is one process's before another may take it over (after a crash)").default(60).argParser(parseSeconds))
    .addOption(new Option("--rate-limit <per-second>", "sustained requests per second per credential, in this process (docs/api/policies.md#policies-on-model-requests)").default(200).argParser(parseRate))
    .addOption(new Option("--rate-burst <requests>", "requests a credential may make at once after being idle, in this process").default(1000).argParser(parseRate))
    .addOption(
      new Option(
        "--trust-proxy <proxies>",
        "believe X-Forwarded-For from these proxies for a client's address: true (any), a hop count, or addresses/CIDR ranges, comma-separated (default: off)",
      )
        .default(false, "off")
        .argParser(parseTrustProxy)
        .env("GATEWAY_TRUST_PROXY"),
    )
    .addOption(
      new Option("--secret-use-flush <seconds>", "how often each secret's use is added to the database and previous secrets are checked (same on every process)")
        .default(2)
        .argParser(parseSeconds),
    )
    .addOption(new Option("--drain-timeout <seconds>", "on SIGTERM/SIGINT, how long requests in flight (streams too) may finish").default(30).argParser(parseSeconds).env("GATEWAY_DRAIN_TIMEOUT"))
    .addOption(
      new Option("--shutdown-delay <seconds>", "on SIGTERM/SIGINT, how long to keep accepting with /readyz at 503 before stopping, for a load balancer to notice")
        .default(0)
        .argParser(parseSeconds)
        .env("GATEWAY_SHUTDOWN_DELAY"),
    )
    .action(async (options: ServeOptions) => serve(options));

  program
    .command("provisioning-key")
    .description("Manage provisioning keys (they are created offline: holding the database is the root of trust).")
    .command("create")
    .description("Create a provisioning key for an owner; prints its secret once, on stdout.")
    .option("--db <file>", "SQLite database file of the gateway")
    .addOption(new Option("--database <url>", "PostgreSQL database of the gateway").env(DATABASE_URL_ENV))
    .requiredOption("--owner <id>", "the account or organisation the key acts for")
    .addOption(new Option("--scopes <list>", "comma-separated scopes").default([...SCOPES], SCOPES.join(",")).argParser(parseScopes))
    .action((options: CreateKeyOptions) => createKey(options));

  program
    .command("provisioning-key-revoke")
    .description("Revoke a provisioning key by its id (pk_…): its account API calls and console sessions stop at once.")
    .option("--db <file>", "SQLite database file of the gateway")
    .addOption(new Option("--database <url>", "PostgreSQL database of the gateway").env(DATABASE_URL_ENV))
    .requiredOption("--id <id>", "the provisioning key's id, as `provisioning-key create` printed it")
    .action((options: RevokeKeyOptions) => revokeKey(options));

  program
    .command("audit")
    .description("The audit trail of account changes.")
    .command("verify")
    .description("Walk each owner's audit chain (or one owner's) and report the first edited, inserted or removed event; exits 1 when any chain is broken.")
    .option("--db <file>", "SQLite database file of the gateway")
    .addOption(new Option("--database <url>", "PostgreSQL database of the gateway").env(DATABASE_URL_ENV))
    .option("--owner <id>", "only this owner's chain")
    .action((options: AuditVerifyOptions) => verifyAudit(options));

  const keys = program.command("keys").description("Regular API keys, through a running gateway's account API.");
  keys
    .command("rotate")
    .description(
      "Rotate every key a label selector selects (at most 100), with one grace: shows a dry run of the keys, their clients and last use, then rotates exactly those. Exit status 3: some keys were left alone (changed in between).",
    )
    .requiredOption("--label <selector>", 'label selector "name=value" (or "name" for any value); repeat to require several', (value: string, previous: string[] = []) => [...previous, value])
    .option("--dry-run", "only show what would be rotated")
    .option("--yes", "rotate without asking (needed when stdin is not a terminal)")
    .addOption(new Option("--grace <duration>", "how long each replaced secret keeps working: 90, 45s, 15m, 1h, 7d (default: it stops at once)").argParser(parseDurationFlag))
    .addOption(new Option("--retire-when-idle <duration>", "with --grace: end a replaced secret once it has gone unused this long").argParser(parseDurationFlag))
    .addOption(new Option("--in-use-warning <duration>", "with --grace: send key.previous_secret_in_use this long before the grace ends, if it is still used").argParser(parseDurationFlag))
    .option("--secrets-file <file>", "where the new secrets go, as JSON (created with mode 0600; never overwritten); required unless --dry-run")
    .addOption(new Option("--output <format>", "stdout: a table, or JSON (without secrets)").choices(["table", "json"]).default("table"))
    .option("--idempotency-key <key>", "the Idempotency-Key of the rotation: pass the one a cut-off run printed to finish it without rotating twice")
    .addOption(new Option("--base-url <url>", "the gateway, e.g. https://gateway.example.com").env(BASE_URL_ENV))
    .option("--provisioning-key-file <file>", `file holding the provisioning key (default: ${PROVISIONING_KEY_ENV})`)
    .action(async (options: KeysRotateOptions) => {
      process.exitCode = await keysRotate(options);
    });

  await program.parseAsync(argv);
}

async function serve(options: ServeOptions): Promise<void> {
  if (options.bootstrap && !options.owner) throw new Error("--bootstrap needs --owner <id>: the owner the provisioning key acts for");
  const database = chooseDatabase(options);
  if (options.watchConfig && options.config === undefined) throw new Error("--watch-config watches the --config file: add --config <file>");
  const encryptionKey = options.encryptionKeyFile === undefined ? undefined : readEncryptionKeyFile(options.encryptionKeyFile);
  if (options.consoleOidc !== undefined && !options.console) throw new Error("--console-oidc signs people in to the console: add --console");
  if (!options.consoleKeySignIn && options.consoleOidc === undefined) {
    throw new Error("--no-console-key-sign-in leaves the console with no way to sign in: add --console-oidc <file>");
  }
  const oidc = options.consoleOidc === undefined ? undefined : loadOidcSettings(resolve(options.consoleOidc));
  const gateway = await startGateway({
    ...(options.config === undefined ? {} : { configPath: resolve(options.config), watchConfig: options.watchConfig === true }),
    ...(encryptionKey ? { encryptionKey } : {}),
    port: options.port,
    host: options.host,
    ...(database.kind === "postgres"
      ? {
          databaseUrl: database.url,
          postgresOptions: {
            reservationLeaseMs: options.spendLeaseMs,
            poolSize: options.databasePoolSize,
            connectTimeoutMs: options.databaseTimeout,
            statementTimeoutMs: options.databaseTimeout,
          },
        }
      : { dbPath: database.path, storeOptions: { meteringDurability: options.meteringDurability, busyTimeoutMs: options.databaseTimeout } }),
    logger: { level: options.logLevel as "info", stream: pino.destination(2) },
    ...(options.bootstrap ? { bootstrap: { ownerId: options.owner!, scopes: options.scopes } } : {}),
    ...(options.metricsPort === undefined ? {} : { metricsPort: options.metricsPort, metricsHost: options.metricsHost ?? options.host }),
    rateLimit: { ratePerSecond: options.rateLimit, burst: options.rateBurst },
    console: options.console === true && { provisioningKey: options.consoleKeySignIn, ...(oidc ? { oidc } : {}) },
    webhooks: {
      allowPrivateTargets: options.webhookAllowPrivateTargets === true,
      attemptTimeoutMs: Math.round(options.webhookTimeout * 1000),
      leaseMs: Math.round(options.webhookLease * 1000),
    },
    trustProxy: options.trustProxy,
    otel: { endpoint: options.otelEndpoint },
    secretUse: { flushIntervalMs: Math.max(100, Math.round(options.secretUseFlush * 1000)) },
    drainTimeoutMs: Math.round(options.drainTimeout * 1000),
    shutdownDelayMs: Math.round(options.shutdownDelay * 1000),
  });
  // Handlers first: whoever reads the "listening" line may signal at once.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: not ready; finishing requests in flight (up to ${options.drainTimeout} s), then closing the database\n`);
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // With a --config, SIGHUP re-reads it (docs/operators/routing.md#reloading-the-config).
  const reloadConfig = gateway.reloadConfig;
  if (reloadConfig) {
    process.on("SIGHUP", () => {
      void reloadConfig().then(({ version, lastReload }) => {
        const said = lastReload?.result === "applied" ? `config reloaded (version ${version})` : `config refused, still serving version ${version}: ${lastReload?.error}`;
        process.stderr.write(`SIGHUP: ${said}\n`);
      });
    });
  }

  process.stdout.write(`gateway listening on ${gateway.url} (database ${database.shown})\n`);
  if (options.console) {
    const ways = [...(oidc ? [`through ${oidc.issuer}`] : []), ...(options.consoleKeySignIn ? ["with a provisioning key with keys:read and usage:read"] : [])];
    process.stdout.write(`console at ${gateway.url}/console (sign in ${ways.join(", or ")})\n`);
  }
  if (gateway.provisioningKey) {
    process.stdout.write(`provisioning key for owner ${gateway.ownerId} (shown once; store it now): ${gateway.provisioningKey}\n`);
  }
  if (gateway.metricsUrl) process.stdout.write(`metrics at ${gateway.metricsUrl}/metrics\n`);
}

/**
 * The reply encryption key from a file (a mounted secret), checked as the variable would be. With
 * the variable set too, two keys would compete: refuse rather than pick one silently.
 */
function readEncryptionKeyFile(path: string): Buffer {
  if (process.env[ENCRYPTION_KEY_ENV]) {
    throw new Error(`${ENCRYPTION_KEY_ENV} and --encryption-key-file (or ${ENCRYPTION_KEY_FILE_ENV}) name two encryption keys; give one`);
  }
  let text: string;
  try {
    text = readFileSync(resolve(path), "utf8");
  } catch (error) {
    throw new Error(`cannot read the encryption key file ${path} (--encryption-key-file or ${ENCRYPTION_KEY_FILE_ENV}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseEncryptionKey(text, `the encryption key file ${path} (--encryption-key-file or ${ENCRYPTION_KEY_FILE_ENV})`);
}

/** The database the options name: SQLite (`--db`, or the default file) or PostgreSQL (`--database`). */
function chooseDatabase(options: { db?: string; database?: string }):
  | { kind: "sqlite"; path: string; shown: string }
  | { kind: "postgres"; url: string; shown: string } {
  if (options.database !== undefined && options.db !== undefined) {
    throw new Error(`--db (SQLite) and --database (PostgreSQL, or ${DATABASE_URL_ENV}) name two databases; give one`);
  }
  if (options.database !== undefined) return { kind: "postgres", url: options.database, shown: describeDatabaseUrl(options.database) };
  const path = resolve(options.db ?? DEFAULT_DB);
  return { kind: "sqlite", path, shown: path };
}

async function openStore(options: { db?: string; database?: string }): Promise<Store> {
  const database = chooseDatabase(options);
  return database.kind === "postgres" ? openPostgresStore(database.url) : openSqliteStore(database.path);
}

async function createKey(options: CreateKeyOptions): Promise<void> {
  if (options.db === undefined && options.database === undefined) {
    throw new Error(`provisioning-key create needs --db <file> or --database <url> (or ${DATABASE_URL_ENV})`);
  }
  const store = await openStore(options);
  try {
    const key = await createProvisioningKey(store, { ownerId: options.owner, scopes: options.scopes });
    process.stderr.write(`created provisioning key ${key.id} for owner ${key.ownerId} with scopes ${key.scopes.join(",")}; the secret below is shown once\n`);
    process.stdout.write(`${key.secret}\n`);
  } finally {
    await store.close();
  }
}

interface RevokeKeyOptions {
  db?: string;
  database?: string;
  id: string;
}

async function revokeKey(options: RevokeKeyOptions): Promise<void> {
  if (options.db === undefined && options.database === undefined) {
    throw new Error(`provisioning-key-revoke needs --db <file> or --database <url> (or ${DATABASE_URL_ENV})`);
  }
  const store = await openStore(options);
  try {
    if (!(await store.revokeProvisioningKey(options.id, Date.now()))) throw new Error(`no live provisioning key ${options.id}`);
    process.stderr.write(`revoked provisioning key ${options.id}\n`);
  } finally {
    await store.close();
  }
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

interface AuditVerifyOptions {
  db?: string;
  database?: string;
  owner?: string;
}

async function verifyAudit(options: AuditVerifyOptions): Promise<void> {
  if (options.db === undefined && options.database === undefined) {
    throw new Error(`audit verify needs --db <file> or --database <url> (or ${DATABASE_URL_ENV})`);
  }
  const store = await openStore(options);
  try {
    const owners = options.owner === undefined ? await store.transaction((tx) => tx.events.auditOwners()) : [options.owner];
    let broken = 0;
    for (const owner of owners) {
      const verdict = await verifyAuditChain(store, owner);
      if (verdict.valid) process.stdout.write(`${owner}: valid, ${verdict.eventsChecked} events, head ${verdict.headHash}\n`);
      else {
        broken += 1;
        process.stdout.write(`${owner}: BROKEN at seq ${verdict.brokenAtSeq} (${verdict.problem}${verdict.brokenEventId ? `, event ${verdict.brokenEventId}` : ""}) after ${verdict.eventsChecked} valid events\n`);
      }
    }
    if (broken > 0) process.exitCode = 1;
  } finally {
    await store.close();
  }
}
