import { randomUUID } from "node:crypto";
import pg from "pg";
import type { KeyState } from "@gateway-keys/contract";
import { SpendBatcher, type SpendBatch } from "../../metering/shared/batcher";
import { SpendHoldings } from "../../metering/shared/holdings";
import { SharedRateLimits, type AdmitRow } from "../../metering/shared/rates";
import type { RouteHealthRecords } from "../../metering/route-health-records";
import { postgresRouteHealth } from "./route-health";
import type {
  ApiKeyFilter,
  ApiKeyUpdate,
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyScope,
  LabelSelector,
  LogsQuery,
  NewApiKey,
  NewLogEntry,
  RequestOutcome,
  SharedHolds,
  SharedSpend,
  SpendSubject,
  SpendDay,
  Store,
  TimelineQuery,
  TimelineRow,
  StoreTransaction,
  StoredApiKey,
  StoredLogEntry,
  StoredOutcome,
  StoredProvisioningKey,
  StorePoolStats,
  UsageLine,
} from "../types";
import { WEBHOOK_HISTORY_DAYS, type PurgedRecords } from "../types";
import {
  timelineFromRow,
  type TimelineDbRow,
  usageFromRow,
  type UsageRow,
} from "../account-rows";
import { checkDatabaseUrl, TYPES } from "./connection";
import { KeyChangeNotifications, type KeyChangeTiming } from "./key-change-listener";
import { API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS } from "../tables";
import { migrate, SCHEMA_VERSION } from "./migrations";
import { SQL, type NamedQuery } from "./statements";
import { EventTables } from "../events/event-tables";
import { SecretUseTables } from "../secret-use-tables";
import { TeamTables } from "../team-tables";
import { postgresStatement, type SqlRunner } from "../events/sql-runner";
import { databaseFaultReason } from "../faults";
import { DatabaseBreaker } from "./breaker";
import { connectionFailure, GuardedClient } from "./guarded-client";
import { InDoubtSettles } from "./in-doubt-settles";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  /** Connections in the pool (the LISTEN connection comes on top). Default 10. */
  poolSize?: number;
  /**
   * Lease of a spend reservation: a process renews its reservations' leases every third of it
   * while it lives, so a killed process's reservations stop counting at most this long after its
   * death. Default 30 000 ms.
   */
  reservationLeaseMs?: number;
  /** Timing of the key-change feed's heartbeat (see {@link KeyChangeNotifications}). */
  keyChangeTiming?: KeyChangeTiming;
  /** How long opening a connection, or waiting for a free one of the pool, may take. Default 5000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long one statement may run (PostgreSQL's `statement_timeout`, lock waits included); the
   * client gives up on an answer a second after that, for a connection that went silent. Default
   * 5000 ms. Migrations run without it.
   */
  statementTimeoutMs?: number;
}

const DAY_MS = 86_400_000;
/** `application_name` of the connection that listens for key changes. */
export const KEY_CHANGES_APPLICATION_NAME = "gateway key changes";

/** PostgreSQL error codes a unit of work is run again for (see {@link Store.transaction}). */
const RETRIED_ERRORS = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);
/** A concurrent create took the same client reference first: run again, and the rules see it. */
const RETRIED_UNIQUE_INDEXES = new Set(["api_keys_live_by_reference"]);
const MAX_ATTEMPTS = 5;

/**
 * Opens the gateway's store on a PostgreSQL database (`postgres://USER:PASSWORD@HOST:PORT/DB`),
 * creating or migrating its schema as needed, and starts listening for key changes. Many gateway
 * processes may share one database: see docs/operators/postgresql.md#postgresql-and-many-processes.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  checkDatabaseUrl(url);
  const connection = connectionConfig(url, options);
  // Each connection listens for its own errors all its life (guarded-client.ts), whoever holds it.
  const pool = new pg.Pool({ ...connection, Client: GuardedClient, max: options.poolSize ?? 10 });
  // An idle connection that breaks is dropped by the pool, which opens a new one when needed, and
  // says so here; without a handler, that would end the process.
  pool.on("error", () => undefined);
  // Named apart, so an operator can tell the listening connection from the pool's in pg_stat_activity.
  const notifications = new KeyChangeNotifications(
    () => new GuardedClient({ ...connection, application_name: KEY_CHANGES_APPLICATION_NAME }),
    options.keyChangeTiming,
  );
  try {
    await migrateOnOwnConnection(connection);
    await notifications.start();
  } catch (error) {
    await notifications.close();
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool, notifications, options.reservationLeaseMs ?? 30_000);
}

/**
 * The settings of every connection: bounded connects, statements and idle transactions, so that
 * a database that is down or stalled answers each request within a known time
 * (docs/operators/storage.md#when-the-database-fails) instead of holding it.
 */
function connectionConfig(url: string, options: PostgresStoreOptions): pg.ClientConfig {
  const statementTimeoutMs = options.statementTimeoutMs ?? 5000;
  return {
    connectionString: url,
    types: TYPES,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
    // A process stopped mid-transaction (SIGSTOP, a long GC) must not hold its locks for ever.
    idle_in_transaction_session_timeout: 2 * statementTimeoutMs,
    keepAlive: true,
    application_name: "gateway",
  };
}

/**
 * Migrates on a connection of its own, without the statement timeout: waiting for another
 * process's migration, or a migration's own work, may take longer than any one request should.
 */
async function migrateOnOwnConnection(connection: pg.ClientConfig): Promise<void> {
  const { statement_timeout: _statement, query_timeout: _query, ...untimed } = connection;
  // Its errors reject the migration's queries; it listens for them so they end nothing else.
  const client = new GuardedClient({ ...untimed, application_name: "gateway migrations" });
  await client.connect();
  try {
    await migrate(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The subjects of a hold as gateway_reserve_holds takes them: parallel arrays, the windows flattened in order. */
function holdSubjectValues(subjects: readonly SpendSubject[]): unknown[] {
  const windows = subjects.flatMap((subject) => subject.windows);
  return [
    subjects.map((subject) => subject.id),
    subjects.map((subject) => subject.kind === "team"),
    subjects.map((subject) => subject.windows.length),
    windows.map((window) => window.start),
    windows.map((window) => window.limitMicros),
  ];
}

class PostgresStore implements Store {
  readonly kind = "postgres";
  readonly location = undefined;
  readonly sharedSpend: SharedSpend;
  readonly sharedRates: SharedRateLimits;
  readonly sharedRouteHealth: RouteHealthRecords;
  readonly keyChanges: KeyChangeNotifications;
  /** Teams, read on the pool behind the breaker. */
  readonly teams: TeamTables;
  readonly sharedHolds: SharedHolds;
  /** Holds this process has made and not yet settled: the ones its renewal keeps alive. */
  readonly #liveHolds = new Set<string>();
  readonly #pool: pg.Pool;
  readonly #renewal: NodeJS.Timeout;
  readonly #spend: SpendBatcher;
  readonly #holdings: SpendHoldings;
  /** Fails requests fast while the database is known to be away; probes it back. */
  readonly #breaker: DatabaseBreaker;
  /** Settles whose batch failed in a way that hides whether it committed. */
  readonly #inDoubt: InDoubtSettles;
  #closed = false;

  constructor(pool: pg.Pool, notifications: KeyChangeNotifications, leaseMs: number) {
    this.#pool = pool;
    this.#breaker = new DatabaseBreaker(async () => {
      await this.#pool.query("SELECT 1");
    });
    this.#inDoubt = new InDoubtSettles(async (entries) => {
      await this.#query(SQL.voidSettles, [entries.map((entry) => entry.id), entries.map((entry) => entry.createdAt)]);
    });
    this.keyChanges = notifications;
    this.teams = new TeamTables({
      dialect: "postgres",
      all: async <Row>(sql: string, params: readonly unknown[]) =>
        (await this.#breaker.guard(() => this.#pool.query({ ...postgresStatement(sql), values: params as unknown[] }))).rows as Row[],
    });
    // This store instance's name on its reservations, for renewing them.
    const holder = randomUUID();
    this.sharedHolds = {
      reserveHolds: async (subjects, micros) => {
        const { rows } = await this.#query<{ holds: string[] | null; refused_window: number | null }>(SQL.reserveHolds, [...holdSubjectValues(subjects), micros, holder, leaseMs]);
        const row = rows[0]!;
        if (row.holds === null) return { refusedWindow: row.refused_window! - 1 };
        const holds = row.holds.map(String);
        for (const id of holds) this.#liveHolds.add(id);
        return { holds };
      },
      holdHeadroom: async (subjects) => {
        const { rows } = await this.#query<{ headroom: string[] }>(SQL.holdHeadroom, holdSubjectValues(subjects));
        return rows[0]!.headroom.map((value) => BigInt(value));
      },
      settleHolds: async (holds, entry, outcome) => {
        const values = [JSON.stringify([REQUEST_LOGS.insertJson(entry)]), [outcome === "succeeded" ? 1 : 0], [outcome === "rejected" ? 1 : 0], holds];
        try {
          for (let attempt = 1; ; attempt++) {
            try {
              await this.#query(SQL.settleHolds, values);
              return;
            } catch (error) {
              if (attempt < MAX_ATTEMPTS && isRetried(error)) continue;
              // As a batch's settles: a charge that may have committed unseen is undone once the database answers.
              if (databaseFaultReason(error) !== undefined) this.#inDoubt.add([entry]);
              throw error;
            }
          }
        } finally {
          for (const id of holds) this.#liveHolds.delete(id);
        }
      },
    };
    this.#spend = new SpendBatcher(
      (batch) => this.#sendSpendBatch(batch, holder, leaseMs),
      undefined,
      undefined,
      (error) => databaseFaultReason(error) === undefined,
    );
    this.#holdings = new SpendHoldings(this.#spend, notifications, (keyId, at) => this.#headroom(keyId, at), { leaseMs });
    this.sharedSpend = this.#holdings;
    this.sharedRates = new SharedRateLimits({
      admit: async (subjects, at, tokens) =>
        (
          await this.#query<AdmitRow>(SQL.admitRates, [
            subjects.map(({ id }) => id),
            at,
            subjects.map(({ policy }) => policy.requestsPerMinute ?? null),
            subjects.map(({ policy }) => policy.tokensPerMinute ?? null),
            subjects.map(({ policy }) => policy.maxConcurrentRequests ?? null),
            tokens,
            holder,
            leaseMs,
          ])
        ).rows,
      release: async (held, unused, at) => {
        await this.#query(SQL.releaseRates, [held.map(({ id }) => id), held.map(({ slot }) => slot), held.map(({ tokensPerMinute }) => tokensPerMinute ?? null), unused, at]);
      },
    });
    this.sharedRouteHealth = postgresRouteHealth((statement, values) => this.#query(statement, values));
    this.#renewal = setInterval(() => {
      if (this.#liveHolds.size > 0) this.#query(SQL.renewHolds, [holder, leaseMs, [...this.#liveHolds]]).catch(() => undefined);
      const slots = this.sharedRates.liveSlots();
      if (slots.length > 0) this.#query(SQL.renewRequestSlots, [slots, leaseMs]).catch(() => undefined);
      // A failed renewal is retried a third of a lease later; only a whole lease of failures loses a reservation.
      const sentAt = Date.now();
      const asked = this.#holdings.liveRows();
      this.#query<{ id: string }>(SQL.renewReservations, [holder, leaseMs, asked]).then(
        ({ rows }) => this.#holdings.renewed(sentAt, new Set(asked), new Set(rows.map((row) => String(row.id)))),
        () => undefined,
      );
    }, Math.max(10, Math.floor(leaseMs / 3)));
    this.#renewal.unref();
  }

  /** One statement: on the pool, behind the breaker; or on a unit of work's connection (whose transaction guards it). */
  #query<Row extends pg.QueryResultRow = pg.QueryResultRow>(query: NamedQuery, values: unknown[], client?: pg.PoolClient) {
    const config = { name: query.name, text: query.text, values };
    return client ? client.query<Row>(config) : this.#breaker.guard(() => this.#pool.query<Row>(config));
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.#breaker.guard(() => this.#transaction(work));
  }

  async #transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { client, release, broken } = await this.#borrow();
      try {
        await client.query("BEGIN");
        const result = await work(this.#transactionApi(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // A connection that failed is discarded: the server rolls its transaction back as it goes.
        if (!broken() && databaseFaultReason(error) === undefined) {
          await client.query("ROLLBACK").then(
            () => release(),
            (rollbackError: Error) => release(rollbackError),
          );
        } else release(broken() ?? (error as Error));
        if (attempt < MAX_ATTEMPTS && isRetried(error)) continue;
        throw error;
      } finally {
        release();
      }
    }
  }

  /**
   * A pooled connection for a unit of work. A connection lost while borrowed (the server stopped,
   * a backend terminated) is known by the error it heard (guarded-client.ts), even one lost before
   * the borrower got it, and goes back broken, so the pool discards it.
   */
  async #borrow(): Promise<{ client: pg.PoolClient; release(error?: Error): void; broken(): Error | undefined }> {
    const client = await this.#pool.connect();
    let released = false;
    const broken = () => connectionFailure(client);
    return {
      client,
      broken,
      release: (error) => {
        if (released) return;
        released = true;
        client.release(broken() ?? error);
      },
    };
  }

  /** The writes of a unit of work, all on its connection (and so in its transaction). */
  #transactionApi(client: pg.PoolClient): StoreTransaction {
    const keyFrom = async (query: NamedQuery, values: unknown[]) => {
      const { rows } = await this.#query<Record<string, unknown>>(query, values, client);
      return rows[0] && API_KEYS.fromRow(rows[0]);
    };
    const runner: SqlRunner = {
      dialect: "postgres",
      all: async <Row>(sql: string, params: readonly unknown[]) => (await client.query({ ...postgresStatement(sql), values: params as unknown[] })).rows as Row[],
    };
    return {
      teams: new TeamTables(runner),
      events: new EventTables(runner),
      secretUse: new SecretUseTables(runner),
      getApiKey: (ownerId, keyId) => keyFrom(SQL.apiKeyByIdHeld, [keyId, ownerId]),
      listApiKeys: async (ownerId, afterSeq, limit, { selectors = [], teamIds } = {}) => {
        const { rows } = await this.#query<Record<string, unknown>>(SQL.listApiKeys, [ownerId, afterSeq, limit, selectorJson(selectors), teamIds ?? null], client);
        return rows.map((row) => API_KEYS.fromRow(row));
      },
      insertApiKey: async (key: NewApiKey) =>
        (await keyFrom(SQL.insertApiKey, API_KEYS.insertValues(key)))!,
      findLiveApiKeyByReference: (ownerId, clientReference) => keyFrom(SQL.liveApiKeyByReference, [ownerId, clientReference]),
      updateApiKey: async (keyId: string, readVersion: number, next: ApiKeyUpdate) => {
        const updated = await keyFrom(SQL.updateApiKey, [...API_KEYS.updateValues(next), keyId, readVersion]);
        if (!updated) throw new Error(`key ${keyId} is not at version ${readVersion}`);
        return updated;
      },
      claimIdempotencyKey: async (claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> => {
        const scope = scopeValues(claim);
        const claimed = await this.#query(SQL.claimIdempotencyKey, [...scope, claim.fingerprint, claim.now, claim.expiresAt], client);
        if (claimed.rowCount === 1) return undefined;
        const { rows } = await this.#query<IdempotencyRow>(SQL.idempotencyRecord, scope, client);
        const row = rows[0]!;
        return { fingerprint: row.fingerprint, status: row.status, sealedBody: row.sealed_body };
      },
      spentSince: async (keyId, since) => (await this.#query<{ spent: bigint }>(SQL.spentSince, [keyId, since], client)).rows[0]!.spent,
      completeIdempotencyKey: async (scope: IdempotencyScope, outcome: StoredOutcome) => {
        await this.#query(SQL.completeIdempotencyKey, [outcome.status, outcome.sealedBody, ...scopeValues(scope)], client);
      },
    };
  }

  async insertProvisioningKey(key: StoredProvisioningKey): Promise<void> {
    await this.#query(SQL.insertProvisioningKey, PROVISIONING_KEYS.insertValues(key));
  }

  async revokeProvisioningKey(id: string, now: number): Promise<boolean> {
    const result = await this.#query(SQL.revokeProvisioningKey, [now, id]);
    return result.rowCount === 1;
  }

  async findProvisioningKeyByHash(secretHash: Buffer): Promise<StoredProvisioningKey | undefined> {
    const { rows } = await this.#query<Record<string, unknown>>(SQL.provisioningKeyByHash, [secretHash]);
    return rows[0] && PROVISIONING_KEYS.fromRow(rows[0]);
  }

  async findApiKeyByHash(secretHash: Buffer): Promise<StoredApiKey | undefined> {
    const { rows } = await this.#query<Record<string, unknown>>(SQL.apiKeyByHash, [secretHash]);
    return rows[0] && API_KEYS.fromRow(rows[0]);
  }

  async getApiKey(ownerId: string, keyId: string): Promise<StoredApiKey | undefined> {
    const { rows } = await this.#query<Record<string, unknown>>(SQL.apiKeyById, [keyId, ownerId]);
    return rows[0] && API_KEYS.fromRow(rows[0]);
  }

  async listApiKeys(ownerId: string, afterSeq: number, limit: number, { selectors = [], teamIds }: ApiKeyFilter = {}): Promise<StoredApiKey[]> {
    const { rows } = await this.#query<Record<string, unknown>>(SQL.listApiKeys, [ownerId, afterSeq, limit, selectorJson(selectors), teamIds ?? null]);
    return rows.map((row) => API_KEYS.fromRow(row));
  }

  async countApiKeysByState(ownerId: string): Promise<Record<KeyState, number>> {
    const counts: Record<KeyState, number> = { active: 0, disabled: 0, revoked: 0 };
    const { rows } = await this.#query<{ state: KeyState; n: number }>(SQL.countApiKeysByState, [ownerId]);
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  async spentSince(keyId: string, since: number): Promise<bigint> {
    const { rows } = await this.#query<{ spent: bigint }>(SQL.spentSince, [keyId, since]);
    return rows[0]!.spent;
  }

  async spentSinceEach(asked: readonly { keyId: string; since: number }[]): Promise<bigint[]> {
    if (asked.length === 0) return [];
    const { rows } = await this.#query<{ spent: bigint }>(SQL.spentSinceEach, [asked.map((one) => one.keyId), asked.map((one) => one.since)]);
    return rows.map((row) => row.spent);
  }

  async spendDays(keyId: string, since: number): Promise<SpendDay[]> {
    const { rows } = await this.#query<{ day: bigint; requests: bigint; spent_micros: bigint }>(SQL.spendDays, [keyId, since]);
    return rows.map((row) => ({ day: Number(row.day), requests: Number(row.requests), spentMicros: row.spent_micros }));
  }

  async teamSpentSince(teamId: string, since: number): Promise<bigint> {
    return (await this.teams.spentSinceEach([{ teamId, since }]))[0]!;
  }

  async #headroom(keyId: string, at: number): Promise<bigint | null> {
    const { rows } = await this.#query<{ headroom: bigint | null }>(SQL.spendHeadroom, [keyId, at]);
    return rows[0]?.headroom ?? null;
  }

  recordRequest(entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    return this.#spend.settle({ row: null, take: null, entry, outcome });
  }

  /**
   * One call of gateway_spend_batch: the settles' log rows, usage counters, charges and releases,
   * then the reservations, in one statement (one round trip, one commit). Run again whole when
   * the database chose it as a deadlock's victim or failed to serialise it: it rolled back.
   */
  async #sendSpendBatch({ settles, releases, reserves }: SpendBatch, holder: string, leaseMs: number): Promise<(string | undefined)[]> {
    const entries = settles.map((settle) => settle.entry);
    const values = [
      JSON.stringify(entries.map((entry) => REQUEST_LOGS.insertJson(entry))),
      settles.map((settle) => settle.row),
      settles.map((settle) => settle.take),
      settles.map((settle) => (settle.outcome === "succeeded" ? 1 : 0)),
      settles.map((settle) => (settle.outcome === "rejected" ? 1 : 0)),
      releases.map((release) => release.holdingId),
      releases.map((release) => release.keyId),
      reserves.map((reserve) => reserve.keyId),
      reserves.map((reserve) => reserve.micros),
      reserves.map((reserve) => reserve.holding),
      reserves.map((reserve) => reserve.floor),
      reserves.map((reserve) => reserve.at),
      holder,
      leaseMs,
    ];
    for (let attempt = 1; ; attempt++) {
      try {
        const { rows } = await this.#query<{ reservations: (string | null)[] }>(SQL.spendBatch, values);
        return rows[0]!.reservations.map((id) => id ?? undefined);
      } catch (error) {
        if (attempt < MAX_ATTEMPTS && isRetried(error)) continue;
        // The batch may have committed with its answer lost: its settles' clients get 503, so
        // their charges, if made, are undone once the database answers again.
        if (databaseFaultReason(error) !== undefined) this.#inDoubt.add(entries);
        throw error;
      }
    }
  }

  async usageLines(ownerId: string): Promise<UsageLine[]> {
    const { rows } = await this.#query<UsageRow>(SQL.usageByOwner, [ownerId]);
    return rows.map(usageFromRow);
  }

  async logTimeline(query: TimelineQuery): Promise<TimelineRow[]> {
    const { rows } = await this.#query<TimelineDbRow>(SQL.logTimeline, [
      query.ownerId,
      query.keyId ?? null,
      query.since,
      query.until,
      query.bucketMs,
      query.now,
      DAY_MS,
      query.teamIds ?? null,
    ]);
    return rows.map(timelineFromRow);
  }

  async listLogs(query: LogsQuery): Promise<StoredLogEntry[]> {
    const { rows } = await this.#query<Record<string, unknown>>(SQL.listLogs, [
      query.ownerId,
      query.beforeSeq,
      query.keyId ?? null,
      query.now,
      DAY_MS,
      query.limit,
      query.teamIds ?? null,
    ]);
    return rows.map((row) => REQUEST_LOGS.fromRow(row));
  }

  async purgeExpired(now: number): Promise<PurgedRecords> {
    const logs = await this.#query(SQL.purgeLogs, [now, DAY_MS]);
    const idempotencyKeys = await this.#query(SQL.purgeIdempotency, [now]);
    const cutoff = now - WEBHOOK_HISTORY_DAYS * DAY_MS;
    const webhookDeliveries = await this.#query(SQL.purgeDeliveries, [cutoff]);
    await this.#query(SQL.purgeEvents, [cutoff]);
    // Leases run on the database's clock, not the injected one: a reservation is swept when its
    // process stopped renewing it, whatever time the gateway's clock says it is.
    await this.#query(SQL.purgeReservations, []);
    await this.#query(SQL.purgeRequestSlots, []);
    return { logs: logs.rowCount ?? 0, idempotencyKeys: idempotencyKeys.rowCount ?? 0, webhookDeliveries: webhookDeliveries.rowCount ?? 0 };
  }

  poolStats(): StorePoolStats {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  async ping(): Promise<void> {
    const { rows } = await this.#query<{ version: number }>(SQL.schemaVersion, []);
    const version = rows[0]!.version;
    if (version !== SCHEMA_VERSION) throw new Error(`the PostgreSQL database is at schema version ${version}; this gateway needs ${SCHEMA_VERSION}`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#renewal);
    // One last try to undo the charges of answers lost in a fault, while the pool still runs.
    await this.#inDoubt.close();
    this.#breaker.close();
    // Holdings given back first, while the pool still runs.
    await this.#holdings.close().catch(() => undefined);
    await this.keyChanges.close();
    // Waits for queries in flight, then closes every connection.
    await this.#pool.end();
  }
}

interface IdempotencyRow {
  fingerprint: Buffer;
  status: number;
  sealed_body: Buffer;
}

function isRetried(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  if (error.code !== undefined && RETRIED_ERRORS.has(error.code)) return true;
  return error.code === "23505" && error.constraint !== undefined && RETRIED_UNIQUE_INDEXES.has(error.constraint);
}

/** The four columns of an idempotency scope, in the order the statements take them. */
function scopeValues(scope: IdempotencyScope): [string, string, string, string] {
  return [scope.ownerId, scope.method, scope.operation, scope.key];
}

/** Label selectors as the list statement takes them: a JSON array of [name, value] pairs (value null: any). */
function selectorJson(selectors: readonly LabelSelector[]): string {
  return JSON.stringify(selectors.map((selector) => [selector.name, selector.value]));
}
