import type { KeyState, LoggingPolicy, ModelPolicy, Scope } from "@gateway-keys/contract";

/**
 * Storage behind the gateway. Every method is one atomic unit: it either happens whole or not at
 * all, so the gateway never has to hold a transaction open across its own code.
 *
 * The interface is synchronous because the embedded default (`node:sqlite`) is: that keeps each
 * method atomic within the process for free. The exception is metering (`settleSpend`,
 * `recordUnbilledRequest`), which resolves once committed so that concurrent requests can share
 * one commit. Callbacks passed
 * in (`change`, `reply`) are pure and synchronous, and run inside the unit, so a networked
 * database can implement the same shape with `SELECT … FOR UPDATE` once the interface goes async.
 *
 * Times are milliseconds since the epoch; credits are integer micro-units (bigint).
 */
export interface Store {
  /** The database file, or `undefined` when the data lives only in memory. */
  readonly location: string | undefined;

  insertProvisioningKey(key: StoredProvisioningKey): void;
  /** The provisioning key whose secret hashes to `secretHash`, revoked or not. */
  findProvisioningKeyByHash(secretHash: Buffer): StoredProvisioningKey | undefined;

  /** The regular key whose current secret hashes to `secretHash`, in any state. */
  findApiKeyByHash(secretHash: Buffer): StoredApiKey | undefined;
  /** One of `ownerId`'s keys; another owner's key is `undefined`, as if it did not exist. */
  getApiKey(ownerId: string, keyId: string): StoredApiKey | undefined;
  /** Up to `limit` of the owner's keys created after sequence number `afterSeq`, oldest first. */
  listApiKeys(ownerId: string, afterSeq: number, limit: number): StoredApiKey[];
  /** Counts of the owner's keys per state. */
  countApiKeysByState(ownerId: string): Record<KeyState, number>;
  /** Inserts a key and, in the same transaction, completes its idempotency claim. */
  createApiKey(key: NewApiKey, reply?: CompleteReply): StoredApiKey;
  /**
   * Reads the owner's key, lets `change` compute the next record (it may throw to refuse), writes
   * it only if the version is still the one read, and completes the idempotency claim — all in one
   * transaction. `undefined` when the owner has no such key.
   */
  updateApiKey(
    ownerId: string,
    keyId: string,
    change: (current: StoredApiKey) => ApiKeyUpdate,
    reply?: CompleteReply,
  ): StoredApiKey | undefined;

  /** Inserts a pending claim for an idempotency key, or reports the row already there. */
  claimIdempotencyKey(claim: IdempotencyClaim): ClaimOutcome;
  /** Deletes a pending claim (the mutation failed, so a retry may run it again). */
  releaseIdempotencyKey(scope: IdempotencyScope): void;

  /**
   * Reserves `micros` of the key's spend limit if the key is active and the reservation fits
   * under its limit (keys without a limit always fit).
   */
  reserveSpend(keyId: string, micros: bigint): ReserveOutcome;
  /**
   * Releases a reservation, charges the actual cost and records the request, in one transaction.
   * Resolves once committed: metering writes of concurrent requests may share a commit, so this
   * is the one asynchronous write (answer the request only after it resolves).
   */
  settleSpend(keyId: string, reservedMicros: bigint, entry: NewLogEntry): Promise<void>;
  /** Records a model request that was refused or failed before it could be charged; resolves once committed. */
  recordUnbilledRequest(entry: NewLogEntry, outcome: "rejected" | "failed"): Promise<void>;

  /** The owner's usage per key and model. */
  usageLines(ownerId: string): UsageLine[];
  /**
   * Up to `limit` of the owner's request logs with sequence number below `beforeSeq`, newest first,
   * leaving out rows older than their key's retention at `now`.
   */
  listLogs(query: LogsQuery): StoredLogEntry[];

  /** Deletes request logs past their key's retention and idempotency rows past their lifetime. */
  purgeExpired(now: number): { logs: number; idempotencyKeys: number };
  /** Closes the store; resolves once every connection it opened is closed. */
  close(): Promise<void>;
}

export interface StoredProvisioningKey {
  id: string;
  ownerId: string;
  secretHash: Buffer;
  hint: string;
  scopes: Scope[];
  createdAt: number;
  revokedAt: number | null;
}

/** A regular key's columns that change through the account API. */
export interface ApiKeyUpdate {
  name: string;
  state: KeyState;
  version: number;
  secretHash: Buffer;
  hint: string;
  spendLimitMicros: bigint | null;
  loggingPolicy: LoggingPolicy;
  modelPolicy: ModelPolicy;
  updatedAt: number;
  rotatedAt: number | null;
  revokedAt: number | null;
}

export interface NewApiKey extends ApiKeyUpdate {
  id: string;
  ownerId: string;
  createdAt: number;
}

export interface StoredApiKey extends NewApiKey {
  /** Creation sequence number: strictly increasing, the order of listing and the cursor. */
  seq: number;
  spentMicros: bigint;
}

/** What an idempotency key is scoped to: the same key may be reused on another path or by another owner. */
export interface IdempotencyScope {
  ownerId: string;
  method: string;
  path: string;
  key: string;
}

export interface IdempotencyClaim extends IdempotencyScope {
  /** SHA-256 of the canonical request body. */
  fingerprint: Buffer;
  now: number;
  /** When a completed reply stops being replayed. */
  expiresAt: number;
  /** When a pending claim is presumed abandoned (its process died) and may be taken over. */
  leaseUntil: number;
}

export type ClaimOutcome =
  | { kind: "claimed" }
  | { kind: "pending"; fingerprint: Buffer }
  | { kind: "completed"; fingerprint: Buffer; status: number; sealedReply: Buffer };

/** The reply to store with a mutation, computed from the record the mutation wrote. */
export type CompleteReply = (written: StoredApiKey) => { scope: IdempotencyScope; status: number; sealedReply: Buffer };

export type ReserveOutcome = "reserved" | "limit_reached" | "inactive";

export interface NewLogEntry {
  id: string;
  ownerId: string;
  keyId: string;
  model: string;
  status: number;
  costMicros: bigint;
  createdAt: number;
  /** Present only when the key's logging policy stores requests. */
  requestInput: string | null;
  /** Present only when the key's logging policy stores responses. */
  responseText: string | null;
}

export interface StoredLogEntry extends NewLogEntry {
  seq: number;
}

export interface LogsQuery {
  ownerId: string;
  keyId?: string;
  beforeSeq: number;
  limit: number;
  now: number;
}

/** Counters of one key and model. */
export interface UsageLine {
  keyId: string;
  model: string;
  total: number;
  succeeded: number;
  rejected: number;
  spentMicros: bigint;
}
