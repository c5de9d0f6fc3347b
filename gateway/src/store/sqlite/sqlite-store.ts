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
import { prepareStatements, type Statements } from "./statements";

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Clear what only a live process can own: spend reservations and pending idempotency claims.
   * Set it in the one server process that owns the database, after a restart; never in a second
   * process (a CLI command) that opens the file while a server runs. Default `false`.
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

  constructor(path: string, options: SqliteStoreOptions) {
    const inMemory = path === ":memory:" || path === "";
    this.location = inMemory ? undefined : path;
    this.#db = new DatabaseSync(inMemory ? ":memory:" : path);
    this.#meteringFull = options.meteringDurability === "full";
    this.#db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    if (!inMemory) this.#db.exec("PRAGMA journal_mode = WAL");
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
      this.#sql.clearReservations.run();
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
    const row = this.#sql.apiKeyByHash.get(secretHash) as ApiKeyRow | undefined;
    return row && apiKeyFromRow(row);
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

  reserveSpend(keyId: string, micros: bigint): ReserveOutcome {
    // One conditional UPDATE: the check and the reservation are a single atomic statement.
    const result = this.#sql.reserveSpend.run({ id: keyId, amount: micros });
    if (Number(result.changes) === 1) return "reserved";
    const row = this.#sql.keyState.get(keyId) as { state: KeyState } | undefined;
    return row?.state === "active" ? "limit_reached" : "inactive";
  }

  settleSpend(keyId: string, reservedMicros: bigint, entry: NewLogEntry): void {
    this.#write(this.#meteringFull, () => {
      this.#sql.settleSpend.run({ id: keyId, reserved: reservedMicros, cost: entry.costMicros });
      this.#insertLog(entry);
      const succeeded = entry.status < 400 ? 1 : 0;
      this.#sql.countUsage.run(usageParams(entry, succeeded, 0));
    });
  }

  recordUnbilledRequest(entry: NewLogEntry, outcome: "rejected" | "failed"): void {
    this.#write(this.#meteringFull, () => {
      this.#insertLog(entry);
      this.#sql.countUsage.run(usageParams(entry, 0, outcome === "rejected" ? 1 : 0));
    });
  }

  #insertLog(entry: NewLogEntry): void {
    this.#sql.insertLog.run({
      id: entry.id,
      owner_id: entry.ownerId,
      key_id: entry.keyId,
      model: entry.model,
      status: entry.status,
      cost_micros: entry.costMicros,
      created_at: entry.createdAt,
      request_input: entry.requestInput,
      response_text: entry.responseText,
    });
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

  close(): void {
    if (this.#db.isOpen) this.#db.close();
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

function usageParams(entry: NewLogEntry, succeeded: number, rejected: number) {
  return {
    key_id: entry.keyId,
    model: entry.model,
    owner_id: entry.ownerId,
    succeeded,
    rejected,
    spent: entry.costMicros,
  };
}
