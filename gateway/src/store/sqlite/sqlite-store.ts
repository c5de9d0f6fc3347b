import { DatabaseSync } from "node:sqlite";
import type { KeyState } from "@gateway-keys/contract";
import type {
  ApiKeyUpdate,
  ClaimOutcome,
  CompleteReply,
  IdempotencyClaim,
  IdempotencyScope,
  LogsQuery,
  NewApiKey,
  NewLogEntry,
  ReserveOutcome,
  Store,
  StoredApiKey,
  StoredLogEntry,
  StoredProvisioningKey,
  UsageLine,
} from "../types";
import { migrate } from "./migrations";
import {
  apiKeyFromRow,
  logFromRow,
  provisioningKeyFromRow,
  usageFromRow,
  type ApiKeyRow,
  type LogRow,
  type ProvisioningKeyRow,
  type UsageRow,
} from "./rows";
import { startCheckpointer } from "./checkpointer";
import { GroupCommitter } from "./group-commit";
import { KeyCache } from "./key-cache";
import { prepareStatements, type Statements } from "./statements";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Clear what only a live process can own: idempotency claims left pending by a process that died
   * between claim and commit. Set it in the one server process that owns the database; never in a
   * second process (a CLI command) that opens the file while a server runs. Default `false`.
   */
  recover?: boolean;
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

/**
 * Opens (creating and migrating as needed) the gateway's SQLite database: a file, or `":memory:"`.
 * The file runs in WAL mode, so readers never block the writer and a killed process loses nothing
 * it committed.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  return new SqliteStore(path, options);
}

class SqliteStore implements Store {
  readonly location: string | undefined;
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #meteringFull: boolean;
  readonly #checkpointer: { stop(): Promise<void> } | undefined;
  readonly #keys = new KeyCache();
  /** Metering writes (spend, logs, usage) of concurrent requests share one commit. */
  readonly #metering = new GroupCommitter((writes) =>
    this.#write(this.#meteringFull, () => {
      for (const write of writes) write();
    }),
  );
  /** Spend reserved by requests in flight, per key id (see reserveSpend). */
  readonly #reservations = new Map<string, bigint>();

  constructor(path: string, options: SqliteStoreOptions) {
    const inMemory = path === ":memory:" || path === "";
    this.location = inMemory ? undefined : path;
    this.#db = new DatabaseSync(inMemory ? ":memory:" : path);
    this.#meteringFull = options.meteringDurability === "full";
    this.#db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
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
    if (options.recover) this.#recover();
  }

  /**
   * Runs `work` in one write transaction. `durable` commits with synchronous=FULL, so an
   * acknowledged key change survives even a power loss; in WAL mode that fsync also covers every
   * earlier NORMAL commit.
   */
  #write<T>(durable: boolean, work: () => T): T {
    const full = durable && this.location !== undefined;
    if (full) this.#sql.syncFull.run();
    try {
      this.#sql.begin.run();
      try {
        const result = work();
        this.#sql.commit.run();
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#sql.rollback.run();
        throw error;
      }
    } finally {
      if (full) this.#sql.syncNormal.run();
    }
  }

  #recover(): void {
    this.#write(true, () => {
      this.#sql.deletePendingClaims.run();
    });
  }

  insertProvisioningKey(key: StoredProvisioningKey): void {
    this.#write(true, () => {
      this.#sql.insertProvisioningKey.run({
        id: key.id,
        owner_id: key.ownerId,
        secret_hash: key.secretHash,
        hint: key.hint,
        scopes: JSON.stringify(key.scopes),
        created_at: key.createdAt,
        revoked_at: key.revokedAt,
      });
    });
  }

  findProvisioningKeyByHash(secretHash: Buffer): StoredProvisioningKey | undefined {
    const row = this.#sql.provisioningKeyByHash.get(secretHash) as ProvisioningKeyRow | undefined;
    return row && provisioningKeyFromRow(row);
  }

  findApiKeyByHash(secretHash: Buffer): StoredApiKey | undefined {
    const cached = this.#keys.byHash(secretHash);
    if (cached) return { ...cached };
    const row = this.#sql.apiKeyByHash.get(secretHash) as ApiKeyRow | undefined;
    return row && { ...this.#keys.remember(apiKeyFromRow(row)) };
  }

  /** The key from the cache, else from the database (then cached). */
  #keyById(keyId: string): StoredApiKey | undefined {
    const cached = this.#keys.byId(keyId);
    if (cached) return cached;
    const row = this.#sql.apiKeyByIdOfAnyOwner.get(keyId) as ApiKeyRow | undefined;
    return row && this.#keys.remember(apiKeyFromRow(row));
  }

  getApiKey(ownerId: string, keyId: string): StoredApiKey | undefined {
    const row = this.#sql.apiKeyById.get(keyId, ownerId) as ApiKeyRow | undefined;
    return row && apiKeyFromRow(row);
  }

  listApiKeys(ownerId: string, afterSeq: number, limit: number): StoredApiKey[] {
    return (this.#sql.listApiKeys.all(ownerId, afterSeq, limit) as unknown as ApiKeyRow[]).map(apiKeyFromRow);
  }

  countApiKeysByState(ownerId: string): Record<KeyState, number> {
    const counts: Record<KeyState, number> = { active: 0, disabled: 0, revoked: 0 };
    for (const row of this.#sql.countApiKeysByState.all(ownerId) as { state: KeyState; n: number }[]) {
      counts[row.state] = Number(row.n);
    }
    return counts;
  }

  createApiKey(key: NewApiKey, reply?: CompleteReply): StoredApiKey {
    return this.#write(true, () => {
      this.#sql.insertApiKey.run(apiKeyParams(key));
      const written = this.getApiKey(key.ownerId, key.id)!;
      if (reply) this.#completeClaim(reply(written));
      return written;
    });
  }

  updateApiKey(
    ownerId: string,
    keyId: string,
    change: (current: StoredApiKey) => ApiKeyUpdate,
    reply?: CompleteReply,
  ): StoredApiKey | undefined {
    return this.#write(true, () => {
      const current = this.getApiKey(ownerId, keyId);
      if (!current) return undefined;
      // Dropped before the write, so no reader can see the old record once it is replaced.
      this.#keys.forget(keyId);
      const next = change(current);
      // The version guard is redundant inside BEGIN IMMEDIATE, and cheap insurance if this ever
      // runs without one (another process, another database).
      const result = this.#sql.updateApiKey.run({ ...apiKeyUpdateParams(next), id: keyId, read_version: current.version });
      if (Number(result.changes) !== 1) throw new Error(`key ${keyId} changed while it was being updated`);
      const written = this.getApiKey(ownerId, keyId)!;
      if (reply) this.#completeClaim(reply(written));
      return written;
    });
  }

  claimIdempotencyKey(claim: IdempotencyClaim): ClaimOutcome {
    // Not durable: a claim lost to a power cut guarded a mutation that was not committed either.
    return this.#write(false, () => {
      const row = this.#sql.idempotencyRow.get(scopeParams(claim)) as IdempotencyRow | undefined;
      const stale =
        row !== undefined &&
        (row.state === "completed" ? Number(row.expires_at) <= claim.now : Number(row.lease_until) <= claim.now);
      if (row && !stale) {
        const fingerprint = Buffer.from(row.fingerprint);
        if (row.state === "pending") return { kind: "pending", fingerprint };
        return { kind: "completed", fingerprint, status: Number(row.status), sealedReply: Buffer.from(row.sealed_reply!) };
      }
      this.#sql.upsertClaim.run({
        ...scopeParams(claim),
        fingerprint: claim.fingerprint,
        created_at: claim.now,
        expires_at: claim.expiresAt,
        lease_until: claim.leaseUntil,
      });
      return { kind: "claimed" };
    });
  }

  releaseIdempotencyKey(scope: IdempotencyScope): void {
    this.#sql.releaseClaim.run(scopeParams(scope));
  }

  #completeClaim(completion: { scope: IdempotencyScope; status: number; sealedReply: Buffer }): void {
    const result = this.#sql.completeClaim.run({
      ...scopeParams(completion.scope),
      status: completion.status,
      sealed_reply: completion.sealedReply,
    });
    // Zero rows: the claim expired and another process took it over; roll the mutation back.
    if (Number(result.changes) !== 1) throw new Error("the idempotency claim was lost before the mutation committed");
  }

  /**
   * Spend reservations are process-local: they belong to requests in flight in this process and
   * die with it (a crash cannot leak one). The check — committed spend plus every reservation in
   * flight plus this one, against the limit — and the reservation are one synchronous step, so no
   * two requests can both pass it. Charges are committed in SQLite, and `spentMicros` of the
   * cached key and the reservation are updated in the same synchronous step as that commit.
   */
  reserveSpend(keyId: string, micros: bigint): ReserveOutcome {
    const key = this.#keyById(keyId);
    if (!key || key.state !== "active") return "inactive";
    const reserved = this.#reservations.get(keyId) ?? 0n;
    if (key.spendLimitMicros !== null && key.spentMicros + reserved + micros > key.spendLimitMicros) return "limit_reached";
    this.#reservations.set(keyId, reserved + micros);
    return "reserved";
  }

  settleSpend(keyId: string, reservedMicros: bigint, entry: NewLogEntry): Promise<void> {
    return this.#metering.submit(
      () => {
        this.#insertLog(entry);
        this.#countUsage(entry, entry.status < 400 ? 1 : 0, 0);
      },
      () => this.#afterCharge(keyId, reservedMicros, entry.costMicros),
    );
  }

  #afterCharge(keyId: string, reservedMicros: bigint, costMicros: bigint): void {
    const left = (this.#reservations.get(keyId) ?? 0n) - reservedMicros;
    if (left > 0n) this.#reservations.set(keyId, left);
    else this.#reservations.delete(keyId);
    this.#keys.charge(keyId, costMicros);
  }

  recordUnbilledRequest(entry: NewLogEntry, outcome: "rejected" | "failed"): Promise<void> {
    return this.#metering.submit(() => {
      this.#insertLog(entry);
      this.#countUsage(entry, 0, outcome === "rejected" ? 1 : 0);
    });
  }

  #insertLog(entry: NewLogEntry): void {
    // Positional parameters (order as in statements.ts): node:sqlite binds them about twice as fast
    // as named ones, and this runs on every model request.
    this.#sql.insertLog.run(
      entry.id,
      entry.ownerId,
      entry.keyId,
      entry.model,
      entry.status,
      entry.costMicros,
      entry.createdAt,
      entry.requestInput,
      entry.responseText,
    );
  }

  /** Adds one request to its key's usage counters; positional, like #insertLog. */
  #countUsage(entry: NewLogEntry, succeeded: number, rejected: number): void {
    this.#sql.countUsage.run(entry.keyId, entry.model, entry.ownerId, succeeded, rejected, entry.costMicros);
  }

  usageLines(ownerId: string): UsageLine[] {
    return (this.#sql.usageByOwner.all(ownerId) as unknown as UsageRow[]).map(usageFromRow);
  }

  listLogs(query: LogsQuery): StoredLogEntry[] {
    const rows = this.#sql.listLogs.all({
      owner_id: query.ownerId,
      key_id: query.keyId ?? null,
      before_seq: query.beforeSeq,
      limit: query.limit,
      now: query.now,
      day_ms: DAY_MS,
    }) as unknown as LogRow[];
    return rows.map(logFromRow);
  }

  purgeExpired(now: number): { logs: number; idempotencyKeys: number } {
    return this.#write(this.#meteringFull, () => ({
      logs: Number(this.#sql.purgeLogs.run({ now, day_ms: DAY_MS }).changes),
      idempotencyKeys: Number(this.#sql.purgeIdempotency.run({ now }).changes),
    }));
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#metering.flush();
    const checkpointerStopped = this.#checkpointer?.stop();
    this.#db.close();
    await checkpointerStopped;
  }
}

interface IdempotencyRow {
  fingerprint: Uint8Array;
  state: "pending" | "completed";
  status: number | bigint | null;
  sealed_reply: Uint8Array | null;
  expires_at: number | bigint;
  lease_until: number | bigint;
}

function scopeParams(scope: IdempotencyScope) {
  return { owner_id: scope.ownerId, method: scope.method, path: scope.path, idem_key: scope.key };
}

function apiKeyUpdateParams(key: ApiKeyUpdate) {
  return {
    name: key.name,
    state: key.state,
    version: key.version,
    secret_hash: key.secretHash,
    hint: key.hint,
    spend_limit_micros: key.spendLimitMicros,
    store_request: key.loggingPolicy.storeRequest ? 1 : 0,
    store_response: key.loggingPolicy.storeResponse ? 1 : 0,
    retention_days: key.loggingPolicy.retentionDays,
    model_mode: key.modelPolicy.mode,
    model_ids: JSON.stringify(key.modelPolicy.modelIds),
    updated_at: key.updatedAt,
    rotated_at: key.rotatedAt,
    revoked_at: key.revokedAt,
  };
}

function apiKeyParams(key: NewApiKey) {
  return { ...apiKeyUpdateParams(key), id: key.id, owner_id: key.ownerId, created_at: key.createdAt };
}
