/**
 * The shared test fixture: a real gateway over real HTTP on 127.0.0.1 (ephemeral port) with a real
 * SQLite database in a temporary directory, plus a provisioning key for one owner.
 *
 * With `GATEWAY_TEST_STORE=postgres` (the `postgres` jest project sets it), each gateway that
 * names no `dbPath` gets a fresh PostgreSQL database instead, on the server at
 * `GATEWAY_TEST_POSTGRES_URL` (started by that project's global setup), dropped by `stop()`.
 *
 *   const gateway = await startTestGateway();
 *   // … requests to gateway.baseUrl with gateway.provisioningKey …
 *   await gateway.stop();
 *
 * Only erasable TypeScript and package imports, so it also runs under Node's type stripping
 * (bench/, scripts/). Keep the exported signatures stable: gateway, sdk, provider and e2e tests
 * use them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { createProvisioningKey, startGateway } from "@gateway-keys/gateway";
import type { RunningGateway, StartGatewayOptions, Store } from "@gateway-keys/gateway";
import type { ApiKeyWithSecret, CreateApiKeyRequest, Scope } from "@gateway-keys/contract";
import { createDatabase, dropDatabase, postgresContents, startPostgres } from "./postgres.ts";

/** Which store test gateways use (`sqlite`, the default, or `postgres`). */
export const TEST_STORE_ENV = "GATEWAY_TEST_STORE";
/** URL of the PostgreSQL server test gateways make their databases on, when {@link TEST_STORE_ENV} is `postgres`. */
export const TEST_POSTGRES_URL_ENV = "GATEWAY_TEST_POSTGRES_URL";

/** The store test gateways use: from {@link TEST_STORE_ENV}. */
export function testStoreKind(): "sqlite" | "postgres" {
  const kind = process.env[TEST_STORE_ENV] ?? "sqlite";
  if (kind !== "sqlite" && kind !== "postgres") throw new Error(`${TEST_STORE_ENV} must be sqlite or postgres, not ${JSON.stringify(kind)}`);
  return kind;
}

/** A clock tests move by hand; pass `clock.now` as the gateway's clock. */
export interface TestClock {
  now: () => Date;
  /** Moves time forward (or back, with a negative amount). */
  advance(ms: number): void;
  set(at: Date | number): void;
}

/** A clock that stands still at `start` (default 2030-01-01T00:00:00Z) until moved. */
export function createTestClock(start: Date | number = Date.UTC(2030, 0, 1)): TestClock {
  let at = typeof start === "number" ? start : start.getTime();
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
    },
    set: (to) => {
      at = typeof to === "number" ? to : to.getTime();
    },
  };
}

/** Options of {@link startTestGateway}; anything else is passed to `startGateway`. */
export interface TestGatewayOptions extends Omit<StartGatewayOptions, "bootstrap" | "port" | "host" | "store"> {
  /** Owner of the bootstrap provisioning key. Default `test-owner`. */
  ownerId?: string;
  /** Scopes of the bootstrap key. Default all. */
  scopes?: Scope[];
  /**
   * `"file"` (default): a SQLite file in a fresh temp directory; `"memory"`: `:memory:`. Ignored if
   * `dbPath` is set, and when the test store is PostgreSQL (a fresh database either way).
   */
  storage?: "file" | "memory";
}

/** A running test gateway. */
export interface TestGateway {
  /** e.g. `http://127.0.0.1:41234`, no trailing slash. */
  baseUrl: string;
  /** Provisioning key of {@link ownerId}, with the scopes asked for. */
  provisioningKey: string;
  ownerId: string;
  /** The SQLite file, or `undefined` in memory or on PostgreSQL. */
  dbPath: string | undefined;
  /** The PostgreSQL database (password included: keep it out of output), when the test store is PostgreSQL. */
  databaseUrl: string | undefined;
  /**
   * Everything the database holds, as bytes, for tests that look for what must not be stored: the
   * SQLite file and its WAL, or every value of every table on PostgreSQL.
   */
  storedBytes(): Promise<Buffer>;
  /** The gateway's store, for tests that look underneath the HTTP API. */
  store: Store;
  /** The running gateway (its Fastify `app` too). */
  gateway: RunningGateway;
  /** A new provisioning key, for this owner or another one. Default scopes: all. */
  newProvisioningKey(ownerId: string, scopes?: Scope[]): Promise<string>;
  /**
   * Creates a regular key over HTTP (`POST /v1/account/api-keys`) and returns the record with its
   * secret. Default body `{ name: "test key" }`; default credential: {@link provisioningKey}.
   */
  createRegularKey(body?: Partial<CreateApiKeyRequest>, options?: { provisioningKey?: string }): Promise<ApiKeyWithSecret>;
  /** Stops the server, closes the database and deletes its temp directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** A PostgreSQL server as a test file uses one: databases of its own, then a clean-up. */
export interface TestPostgres {
  /** Creates an empty database and returns its URL, password included: keep it out of output. */
  createDatabase(): Promise<string>;
  /** Drops the databases made on the run's shared server, or stops this file's own server. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server for one test file: the run's shared one when the `postgres` jest project's
 * global setup started one ({@link TEST_POSTGRES_URL_ENV}, inherited by every worker of the run),
 * else a server of its own. One server per run rather than one per file: an initdb and a start
 * cost seconds each on a loaded machine. (A test that stops or restarts its server needs its own:
 * `startPostgres`.)
 */
export async function testPostgres(): Promise<TestPostgres> {
  const shared = process.env[TEST_POSTGRES_URL_ENV];
  if (!shared) return startPostgres();
  const made: string[] = [];
  return {
    async createDatabase() {
      const url = await createDatabase(shared);
      made.push(url);
      return url;
    },
    async stop() {
      await Promise.all(made.splice(0).map((url) => dropDatabase(url)));
    },
  };
}

function testPostgresUrl(): string {
  const url = process.env[TEST_POSTGRES_URL_ENV];
  if (!url) throw new Error(`${TEST_STORE_ENV}=postgres needs ${TEST_POSTGRES_URL_ENV}: run through the postgres jest project, whose global setup starts a server`);
  return url;
}

/** Starts a gateway for one test file (or one test). */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { ownerId = "test-owner", scopes, storage = "file", dbPath: givenPath, ...gatewayOptions } = options;
  const databaseUrl = givenPath === undefined && testStoreKind() === "postgres" ? await createDatabase(testPostgresUrl()) : undefined;
  const tempDir = givenPath === undefined && !databaseUrl && storage === "file" ? mkdtempSync(join(tmpdir(), "gateway-test-")) : undefined;
  const dbPath = givenPath ?? (tempDir ? join(tempDir, "gateway.db") : ":memory:");
  let gateway: RunningGateway;
  try {
    gateway = await startGateway({
      ...gatewayOptions,
      ...(databaseUrl
        ? // Every process sharing a PostgreSQL database needs one reply key; this one has one process.
          { databaseUrl, encryptionKey: gatewayOptions.encryptionKey ?? randomBytes(32) }
        : { dbPath }),
      port: 0,
      host: "127.0.0.1",
      bootstrap: { ownerId, ...(scopes ? { scopes } : {}) },
    });
  } catch (error) {
    if (databaseUrl) await dropDatabase(databaseUrl);
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  const baseUrl = gateway.url;
  const provisioningKey = gateway.provisioningKey!;

  return {
    baseUrl,
    provisioningKey,
    ownerId,
    dbPath: databaseUrl || dbPath === ":memory:" ? undefined : dbPath,
    databaseUrl,
    async storedBytes() {
      if (databaseUrl) return postgresContents(databaseUrl);
      if (dbPath === ":memory:") throw new Error("an in-memory database has no stored bytes to read");
      return Buffer.concat([dbPath, `${dbPath}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
    },
    store: gateway.store,
    gateway,
    async newProvisioningKey(owner, keyScopes) {
      // Awaited whether or not the store answers synchronously, so an asynchronous Store needs no change here.
      const created = await createProvisioningKey(gateway.store, {
        ownerId: owner,
        ...(keyScopes ? { scopes: keyScopes } : {}),
        ...(gatewayOptions.clock ? { clock: gatewayOptions.clock } : {}),
      });
      return created.secret;
    },
    async createRegularKey(body = {}, requestOptions = {}) {
      const response = await fetch(`${baseUrl}/v1/account/api-keys`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${requestOptions.provisioningKey ?? provisioningKey}`,
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify({ name: "test key", ...body }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`creating a key failed: ${response.status} ${text}`);
      return JSON.parse(text) as ApiKeyWithSecret;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await gateway.close();
      } finally {
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
        if (databaseUrl) await dropDatabase(databaseUrl);
      }
    },
  };
}
