import { accessSync, constants } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { KeyState } from "@gateway-keys/contract";
import type {
  ApiKeyFilter,
  ApiKeyUpdate,
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyScope,
  LogsQuery,
  NewApiKey,
  NewLogEntry,
  RequestOutcome,
  SpendDay,
  Store,
  TimelineQuery,
  TimelineRow,
  StoreTransaction,
  StoredApiKey,
  StoredLogEntry,
  StoredOutcome,
  StoredProvisioningKey,
  UsageLine,
} from "../types";
import { WEBHOOK_HISTORY_DAYS, type PurgedRecords } from "../types";
import { DatabaseUnavailableError, databaseFaultReason, isSqliteBusy } from "../faults";
import { EventTables } from "../events/event-tables";
import { SecretUseTables } from "../secret-use-tables";
import { TeamTables } from "../team-tables";
import type { SqlRunner } from "../events/sql-runner";
import { migrate, SCHEMA_VERSION } from "./migrations";
import {
  timelineFromRow,
  type TimelineDbRow,
  usageFromRow,
  type UsageRow,
} from "../account-rows";
import { startCheckpointer } from "./checkpointer";
import { ConnectionGate } from "./connection-gate";
import { GroupCommitter } from "./group-commit";
import { UsageTally } from "./usage-tally";
import { API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS } from "../tables";
import { prepareStatements, type Statements } from "./statements";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * How metering writes (spend, request logs, usage counters) reach the disk. Key and idempotency
   * writes always use `full` (fsync at each commit). `normal` (the default) survives a crash or
   * SIGKILL of the process; a power loss or OS crash may lose the last metering commits since
   * the most recent checkpoint or `full` commit. `full` also survives that, at about 0.4 ms
   * (one fsync) per model request.
   */
  meteringDurability?: "normal" | "full";
  /** How long a write waits for another connection's lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * Interval of WAL checkpoints, run in a background thread so their fsync never stalls a
   * request. Default 100 ms; 0 leaves checkpoints to SQLite (inside commits, every ~1000 pages).
   */
  checkpointIntervalMs?: number;
}

const DAY_MS = 86_400_000;

/** A team filter as the statements bind it: a JSON array of ids, or null for any team (or none). */
function teamIdsParam(teamIds: readonly string[] | undefined): string | null {
  return teamIds === undefined ? null : JSON.stringify(teamIds);
}

/**
 * Opens (creating and migrating as needed) the gateway's SQLite database: a file, or `":memory:"`.
 * The file runs in WAL mode, so readers never block the writer and a killed process loses nothing
 * it committed.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  try {
    return new SqliteStore(path, options);
  } catch (error) {
    throw new Error(`cannot open the SQLite database ${path}: ${whyNotOpened(path, error)}`, { cause: error });
  }
}

/** What an operator should know about a database that would not open: SQLite's own words say little ("unable to open database file"). */
function whyNotOpened(path: string, error: unknown): string {
  const reason = databaseFaultReason(error) ?? (error instanceof Error ? error.message : String(error));
  if (path === ":memory:" || path === "") return reason;
  try {
    // WAL mode writes two files beside the database: its folder must be writable too.
    accessSync(dirname(resolve(path)), constants.W_OK);
  } catch (accessError) {
    const code = (accessError as NodeJS.ErrnoException).code;
    if (code === "EROFS") return `${reason}: the volume holding it is read-only; mount it read-write`;
    if (code === "EACCES" || code === "EPERM") return `${reason}: this process may not write to its folder; the database and its folder must be writable`;
    if (code === "ENOENT") return `${reason}: its folder does not exist`;
  }
  return reason;
}

class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly location: string | undefined;
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #meteringFull: boolean;
  readonly #checkpointer: { stop(): Promise<void> } | undefined;
  readonly #gate = new ConnectionGate();
  readonly #busyTimeoutMs: number;
  /**
   * While set, writes are refused at once (503): the last write found the file locked by another
   * connection past the busy timeout. Waiting for SQLite's lock holds the event loop (node:sqlite is
   * synchronous), so writes queued behind a lock held for long would each wait it out in turn, and
   * every request — reads and health checks too — would stall for seconds; instead one write a busy
   * timeout later tries again.
   */
  #locked: { until: number; reason: string } | undefined;
  /**
   * Metering writes of concurrent requests share one commit: each request's log row, and the usage
   * and day counters of the batch added up per key and model (per key and day), one upsert each.
   */
  readonly #metering = new GroupCommitter<UsageTally>(
    (writes) =>
      this.#write(this.#meteringFull, () => {
        const tally = new UsageTally();
        for (const write of writes) write(tally);
        tally.writeTo(this.#sql);
      }),
    (flush) => void (this.#gate.open ? this.#gate.exclusive(flush) : flush()),
  );

  constructor(path: string, options: SqliteStoreOptions) {
    const inMemory = path === ":memory:" || path === "";
    this.location = inMemory ? undefined : path;
    this.#db = new DatabaseSync(inMemory ? ":memory:" : path);
    this.#meteringFull = options.meteringDurability === "full";
    this.#busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
    this.#db.exec(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`);
    if (!inMemory) {
      this.#db.exec("PRAGMA journal_mode = WAL");
      // Keep a WAL file that grew under a burst from staying that large on disk.
      this.#db.exec("PRAGMA journal_size_limit = 16777216");
      if (options.checkpointIntervalMs !== 0) {
        this.#checkpointer = startCheckpointer(path, options.checkpointIntervalMs ?? 100);
        // With the background thread checkpointing, SQLite's own auto-checkpoint (at 1000 WAL
        // frames, about 200 metering commits) would still run inside a commit now and then, with
        // two fsyncs, on the request path: measured, that was most commits over 1 ms. It stays on
        // only as a backstop (~40 MiB of WAL) should the thread ever fall behind.
        this.#db.exec("PRAGMA wal_autocheckpoint = 10000");
      }
    }
    // The baseline is NORMAL; durable transactions raise it to FULL around their commit (see #write).
    this.#db.exec("PRAGMA synchronous = NORMAL");
    this.#db.exec("PRAGMA foreign_keys = ON");
    migrate(this.#db);
    this.#sql = prepareStatements(this.#db);
  }

  /**
   * Runs `work` in one write transaction. `durable` commits with synchronous=FULL, so an
   * acknowledged key change survives even a power loss; in WAL mode that fsync also covers every
   * earlier NORMAL commit.
   */
  #write<T>(durable: boolean, work: () => T): T {
    const transaction = this.#begin(durable);
    try {
      return transaction.commit(work());
    } catch (error) {
      transaction.rollback();
      throw error;
    }
  }

  /** Like {@link #write}, for a unit of work that awaits (alone on the connection: see the gate). */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.#gate.exclusive(async () => {
      const transaction = this.#begin(true);
      try {
        return transaction.commit(await work(this.#transactionApi));
      } catch (error) {
        transaction.rollback();
        throw error;
      }
    });
  }

  /** Opens a write transaction (synchronous=FULL around it when durable); its commit passes a result through. */
  #begin(durable: boolean): { commit<T>(result: T): T; rollback(): void } {
    if (this.#locked) {
      if (performance.now() < this.#locked.until) throw new DatabaseUnavailableError(this.#locked.reason);
      this.#locked = undefined;
    }
    const full = durable && this.location !== undefined;
    if (full) this.#sql.syncFull.run();
    const restore = () => {
      if (full) this.#sql.syncNormal.run();
    };
    try {
      this.#sql.begin.run();
    } catch (error) {
      restore();
      if (isSqliteBusy(error)) this.#locked = { until: performance.now() + this.#busyTimeoutMs, reason: databaseFaultReason(error)! };
      throw error;
    }
    return {
      commit: (result) => {
        try {
          this.#sql.commit.run();
        } finally {
          restore();
        }
        return result;
      },
      rollback: () => {
        try {
          if (this.#db.isTransaction) this.#sql.rollback.run();
        } finally {
          restore();
        }
      },
    };
  }

  /** The writes a unit of work may make; only ever called inside {@link transaction}. */
  /** The event tables' statements, prepared on first use (on the one connection, inside the unit of work). */
  readonly #eventStatements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  readonly #eventRunner: SqlRunner = {
    dialect: "sqlite",
    all: async <Row>(sql: string, params: readonly unknown[]) => this.#runShared<Row>(sql, params),
  };

  #runShared<Row>(sql: string, params: readonly unknown[]): Row[] {
    let statement = this.#eventStatements.get(sql);
    if (!statement) this.#eventStatements.set(sql, (statement = this.#db.prepare(sql)));
    return statement.all(...(params as never[])) as Row[];
  }

  /** The shared tables' statements outside a unit of work: reads, behind the connection gate. */
  readonly #readRunner: SqlRunner = {
    dialect: "sqlite",
    all: <Row>(sql: string, params: readonly unknown[]) => this.#gate.read(() => this.#runShared<Row>(sql, params)),
  };
  readonly teams = new TeamTables(this.#readRunner);

  readonly #transactionApi: StoreTransaction = {
    teams: new TeamTables(this.#eventRunner),
    events: new EventTables(this.#eventRunner),
    secretUse: new SecretUseTables(this.#eventRunner),
    getApiKey: async (ownerId, keyId) => this.#apiKey(ownerId, keyId),
    listApiKeys: async (ownerId, afterSeq, limit, filter = {}) => this.#listApiKeys(ownerId, afterSeq, limit, filter),
    insertApiKey: async (key: NewApiKey) => {
      this.#sql.insertApiKey.run(...API_KEYS.insertValues(key));
      return this.#apiKey(key.ownerId, key.id)!;
    },
    findLiveApiKeyByReference: async (ownerId, clientReference) => {
      const row = this.#sql.liveApiKeyByReference.get(ownerId, clientReference) as Record<string, unknown> | undefined;
      return row && API_KEYS.fromRow(row);
    },
    updateApiKey: async (keyId: string, readVersion: number, next: ApiKeyUpdate) => {
      const result = this.#sql.updateApiKey.run(...API_KEYS.updateValues(next), keyId, readVersion);
      if (Number(result.changes) !== 1) throw new Error(`key ${keyId} is not at version ${readVersion}`);
      return API_KEYS.fromRow(this.#sql.apiKeyByIdOfAnyOwner.get(keyId) as Record<string, unknown>);
    },
    claimIdempotencyKey: async (claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> => {
      const scope = scopeValues(claim);
      const row = this.#sql.idempotencyRecord.get(...scope) as IdempotencyRow | undefined;
      if (row && Number(row.expires_at) > claim.now) {
        return { fingerprint: Buffer.from(row.fingerprint), status: Number(row.status), sealedBody: Buffer.from(row.sealed_body) };
      }
      this.#sql.claimIdempotencyKey.run(...scope, claim.fingerprint, claim.now, claim.expiresAt);
      return undefined;
    },
    spentSince: async (keyId, since) => BigInt((this.#sql.spentSince.get(keyId, since) as { spent: bigint }).spent),
    completeIdempotencyKey: async (scope: IdempotencyScope, outcome: StoredOutcome) => {
      this.#sql.completeIdempotencyKey.run(outcome.status, outcome.sealedBody, ...scopeValues(scope));
    },
  };

  #apiKey(ownerId: string, keyId: string): StoredApiKey | undefined {
    const row = this.#sql.apiKeyById.get(keyId, ownerId) as Record<string, unknown> | undefined;
    return row && API_KEYS.fromRow(row);
  }

  insertProvisioningKey(key: StoredProvisioningKey): Promise<void> {
    return this.#gate.exclusive(() =>
      this.#write(true, () => {
        this.#sql.insertProvisioningKey.run(...PROVISIONING_KEYS.insertValues(key));
      }),
    );
  }

  revokeProvisioningKey(id: string, now: number): Promise<boolean> {
    return this.#gate.exclusive(() => this.#write(true, () => Number(this.#sql.revokeProvisioningKey.run(now, id).changes) === 1));
  }

  findProvisioningKeyByHash(secretHash: Buffer): Promise<StoredProvisioningKey | undefined> {
    return this.#gate.read(() => {
      const row = this.#sql.provisioningKeyByHash.get(secretHash) as Record<string, unknown> | undefined;
      return row && PROVISIONING_KEYS.fromRow(row);
    });
  }

  findApiKeyByHash(secretHash: Buffer): Promise<StoredApiKey | undefined> {
    return this.#gate.read(() => {
      const row = this.#sql.apiKeyByHash.get({ hash: secretHash }) as Record<string, unknown> | undefined;
      return row && API_KEYS.fromRow(row);
    });
  }

  getApiKey(ownerId: string, keyId: string): Promise<StoredApiKey | undefined> {
    return this.#gate.read(() => this.#apiKey(ownerId, keyId));
  }

  listApiKeys(ownerId: string, afterSeq: number, limit: number, filter: ApiKeyFilter = {}): Promise<StoredApiKey[]> {
    return this.#gate.read(() => this.#listApiKeys(ownerId, afterSeq, limit, filter));
  }

  #listApiKeys(ownerId: string, afterSeq: number, limit: number, { selectors = [], teamIds }: ApiKeyFilter): StoredApiKey[] {
    const params = {
      owner_id: ownerId,
      after_seq: afterSeq,
      limit,
      selectors: JSON.stringify(selectors.map((s) => [s.name, s.value])),
      team_ids: teamIdsParam(teamIds),
    };
    return (this.#sql.listApiKeys.all(params) as Record<string, unknown>[]).map((row) => API_KEYS.fromRow(row));
  }

  countApiKeysByState(ownerId: string): Promise<Record<KeyState, number>> {
    return this.#gate.read(() => {
      const counts: Record<KeyState, number> = { active: 0, disabled: 0, revoked: 0 };
      for (const row of this.#sql.countApiKeysByState.all(ownerId) as { state: KeyState; n: number }[]) {
        counts[row.state] = Number(row.n);
      }
      return counts;
    });
  }

  spentSince(keyId: string, since: number): Promise<bigint> {
    return this.#gate.read(() => BigInt((this.#sql.spentSince.get(keyId, since) as { spent: bigint }).spent));
  }

  async teamSpentSince(teamId: string, since: number): Promise<bigint> {
    return (await this.teams.spentSinceEach([{ teamId, since }]))[0]!;
  }

  spentSinceEach(asked: readonly { keyId: string; since: number }[]): Promise<bigint[]> {
    return this.#gate.read(() => asked.map(({ keyId, since }) => BigInt((this.#sql.spentSince.get(keyId, since) as { spent: bigint }).spent)));
  }

  spendDays(keyId: string, since: number): Promise<SpendDay[]> {
    return this.#gate.read(() =>
      (this.#sql.spendDays.all(keyId, since) as { day: bigint; requests: bigint; spent_micros: bigint }[]).map((row) => ({
        day: Number(row.day),
        requests: Number(row.requests),
        spentMicros: row.spent_micros,
      })),
    );
  }

  recordRequest(entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    return this.#metering.submit((tally) => {
      // Positional parameters: node:sqlite binds them about twice as fast as named ones, and this
      // runs on every model request.
      this.#sql.insertLog.run(...REQUEST_LOGS.insertValues(entry));
      tally.add(entry, outcome);
    });
  }

  usageLines(ownerId: string): Promise<UsageLine[]> {
    return this.#gate.read(() => (this.#sql.usageByOwner.all(ownerId) as unknown as UsageRow[]).map(usageFromRow));
  }

  logTimeline(query: TimelineQuery): Promise<TimelineRow[]> {
    return this.#gate.read(() =>
      (
        this.#sql.logTimeline.all({
          owner_id: query.ownerId,
          key_id: query.keyId ?? null,
          team_ids: teamIdsParam(query.teamIds),
          since: query.since,
          until: query.until,
          bucket_ms: query.bucketMs,
          now: query.now,
          day_ms: DAY_MS,
        }) as unknown as TimelineDbRow[]
      ).map(timelineFromRow),
    );
  }

  listLogs(query: LogsQuery): Promise<StoredLogEntry[]> {
    return this.#gate.read(() => {
      const rows = this.#sql.listLogs.all({
        owner_id: query.ownerId,
        key_id: query.keyId ?? null,
        team_ids: teamIdsParam(query.teamIds),
        before_seq: query.beforeSeq,
        limit: query.limit,
        now: query.now,
        day_ms: DAY_MS,
      }) as Record<string, unknown>[];
      return rows.map((row) => REQUEST_LOGS.fromRow(row));
    });
  }

  purgeExpired(now: number): Promise<PurgedRecords> {
    const cutoff = now - WEBHOOK_HISTORY_DAYS * DAY_MS;
    return this.#gate.exclusive(() =>
      this.#write(this.#meteringFull, () => {
        const webhookDeliveries = Number(this.#sql.purgeDeliveries.run({ cutoff }).changes);
        this.#sql.purgeEvents.run({ cutoff });
        return {
          logs: Number(this.#sql.purgeLogs.run({ now, day_ms: DAY_MS }).changes),
          idempotencyKeys: Number(this.#sql.purgeIdempotency.run({ now }).changes),
          webhookDeliveries,
        };
      }),
    );
  }

  ping(): Promise<void> {
    return this.#gate.read(() => {
      if (!this.#db.isOpen) throw new Error("the SQLite database is closed");
      const { user_version: version } = this.#sql.schemaVersion.get() as { user_version: number };
      if (version !== SCHEMA_VERSION) throw new Error(`the SQLite database is at schema version ${version}; this gateway needs ${SCHEMA_VERSION}`);
    });
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    await this.#gate.drained();
    this.#metering.flush();
    const checkpointerStopped = this.#checkpointer?.stop();
    this.#db.close();
    await checkpointerStopped;
  }
}

interface IdempotencyRow {
  fingerprint: Uint8Array;
  status: number | bigint;
  sealed_body: Uint8Array;
  expires_at: number | bigint;
}

/** The four columns of an idempotency scope, in the order the statements take them. */
function scopeValues(scope: IdempotencyScope): [string, string, string, string] {
  return [scope.ownerId, scope.method, scope.operation, scope.key];
}
