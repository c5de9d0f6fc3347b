import type { KeyState, Labels, LoggingPolicy, ModelPolicy, RateLimitPolicy, ResetPeriod, Scope } from "@gateway-keys/contract";
import type { EventTables } from "./events/event-tables";
import type { TeamTables } from "./team-tables";
import type { PreviousSecretRetireReason, SecretUseTables } from "./secret-use-tables";
import type { RouteHealthRecords } from "../metering/route-health-records";
import type { KeyChangeFeed, NewLogEntry, RateLimits, RequestOutcome, SharedSpend, SpendRecords, StoredSpendWindow } from "../metering/interfaces";

export type { StoredSpendWindow } from "../metering/interfaces";
export type { NewTeam, StoredTeam, TeamUpdate } from "./team-rows";
export type { HeldSpend, KeyChangeFeed, KeyChangeListener, NewLogEntry, RateAdmission, RateLimits, RateVerdict, RequestOutcome, SharedHolds, SharedSpend, SpendSubject } from "../metering/interfaces";


/**
 * Storage behind the gateway: it persists and reads, and knows nothing of HTTP, idempotency rules,
 * spend limits or key lifecycle rules (those live in `idempotency/`, `policies/` and `keys/`).
 *
 * Every method is asynchronous so that a networked database implements the same contract. Writes
 * that must happen together run in one {@link Store.transaction}; everything else is one atomic
 * statement. Times are milliseconds since the epoch; credits are integer micro-units (bigint).
 */
export interface Store extends SpendRecords {
  /**
   * Which database: `sqlite` is owned by one process; `postgres` may be shared by many gateway
   * processes, which then also need one reply encryption key between them.
   */
  readonly kind: "sqlite" | "postgres";
  /** The database file, or `undefined` when the data lives only in memory (or on a server). */
  readonly location: string | undefined;
  /**
   * Spend reservations held in the database, so that every process sharing it counts every
   * other's requests in flight. Offered by stores that many processes share (PostgreSQL); a
   * store owned by one process leaves reservations to that process's memory.
   */
  readonly sharedSpend?: SharedSpend;
  /** Rate limits counted in the database, across every process sharing it (PostgreSQL). */
  readonly sharedRates?: RateLimits;
  /** Routes' failures and cooldowns recorded in the database, across every process sharing it (PostgreSQL). */
  readonly sharedRouteHealth?: RouteHealthRecords;
  /** Changes of keys made by any process sharing the database (PostgreSQL), for caches in front of the store. */
  readonly keyChanges?: KeyChangeFeed;

  /** Resolves when the database answers and its schema is the one this build expects; otherwise throws, saying which. */
  ping(): Promise<void>;

  /**
   * Runs `work` as one unit of work: every write it makes through `tx` commits together, durably,
   * or none does (a throw rolls back and is rethrown). Units of work are serialised per key row
   * (or wholesale, in SQLite), so `work` sees no concurrent change of what it read. A store shared
   * by many processes may run `work` again after rolling it back, when it lost a race on a unique
   * key to another unit of work: `work` must write only through `tx`.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;

  insertProvisioningKey(key: StoredProvisioningKey): Promise<void>;
  /** Revokes a provisioning key at `now`: true when it was live, false when unknown or already revoked. */
  revokeProvisioningKey(id: string, now: number): Promise<boolean>;
  /** The provisioning key whose secret hashes to `secretHash`, revoked or not. */
  findProvisioningKeyByHash(secretHash: Buffer): Promise<StoredProvisioningKey | undefined>;

  /**
   * The regular key whose current secret, or whose previous secret (extension `rotation_grace`),
   * hashes to `secretHash`, in any state. Whether a previous secret is still valid is not the
   * store's business: the caller compares `previousSecretExpiresAt` with its clock and checks
   * `previousSecretRetiredAt` (keys/records.ts `matchSecret`).
   */
  findApiKeyByHash(secretHash: Buffer): Promise<StoredApiKey | undefined>;
  /** One of `ownerId`'s keys; another owner's key is `undefined`, as if it did not exist. */
  getApiKey(ownerId: string, keyId: string): Promise<StoredApiKey | undefined>;
  /** Up to `limit` of the owner's keys created after sequence number `afterSeq`, oldest first, that `filter` keeps. */
  listApiKeys(ownerId: string, afterSeq: number, limit: number, filter?: ApiKeyFilter): Promise<StoredApiKey[]>;
  /** Counts of the owner's keys per state. */
  countApiKeysByState(ownerId: string): Promise<Record<KeyState, number>>;
  /** Credits a key has spent on requests that began at or after `since` (ms; 0: ever): the sum of its committed charges. */
  spentSince(keyId: string, since: number): Promise<bigint>;
  /** {@link spentSince} of many keys at once (one round trip), in the order asked. */
  spentSinceEach(asked: readonly { keyId: string; since: number }[]): Promise<bigint[]>;
  /** Teams, their keys and their spend, outside a unit of work (reads). */
  readonly teams: TeamTables;
  /** A key's requests and spend per UTC day, from the day `since` on, oldest first. */
  spendDays(keyId: string, since: number): Promise<SpendDay[]>;

  /**
   * Records one model request: its log row and its usage counters (which carry its charge), in
   * one commit. Resolves once committed; concurrent requests may share a commit.
   */
  recordRequest(entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;

  /** The owner's (or one key's) requests logged in [since, until), counted per bucket, model and status; logs past their retention left out. */
  logTimeline(query: TimelineQuery): Promise<TimelineRow[]>;
  /** The owner's usage per key and model. */
  usageLines(ownerId: string): Promise<UsageLine[]>;
  /**
   * Up to `limit` of the owner's request logs with sequence number below `beforeSeq`, newest first,
   * leaving out rows older than their key's retention at `now`.
   */
  listLogs(query: LogsQuery): Promise<StoredLogEntry[]>;

  /** Deletes request logs past their key's retention, idempotency records past their lifetime and ended webhook deliveries past their history. */
  purgeExpired(now: number): Promise<PurgedRecords>;
  /**
   * Figures of the store's connection pool, for the metrics; absent on a store without a pool
   * (SQLite holds one connection).
   */
  poolStats?(): StorePoolStats;
  /** Closes the store; resolves once every connection it opened is closed. */
  close(): Promise<void>;
}

/** A connection pool's figures at one moment (see {@link Store.poolStats}). */
export interface StorePoolStats {
  /** Connections open, busy or idle. */
  total: number;
  /** Open connections not serving a query. */
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

/** Which of the owner's keys a list keeps: with `selectors`, keys whose labels match every one; with `teamIds`, keys now in one of those teams. */
export interface ApiKeyFilter {
  selectors?: readonly LabelSelector[];
  teamIds?: readonly string[];
}

/** A label a listed key must have: `name` with `value`, or with any value when `value` is null. */
export interface LabelSelector {
  name: string;
  value: string | null;
}

/** One key's requests and spend on one UTC day (`day`: its 00:00, ms). */
export interface SpendDay {
  day: number;
  requests: number;
  spentMicros: bigint;
}

/** The writes of one unit of work (see {@link Store.transaction}). */
export interface StoreTransaction {
  /** One of `ownerId`'s keys, held against concurrent change until the unit of work ends. */
  getApiKey(ownerId: string, keyId: string): Promise<StoredApiKey | undefined>;
  /** {@link Store.listApiKeys}, as this unit of work sees it (the rows are not held). */
  listApiKeys(ownerId: string, afterSeq: number, limit: number, filter?: ApiKeyFilter): Promise<StoredApiKey[]>;
  /** Inserts a new key and returns it as stored. */
  insertApiKey(key: NewApiKey): Promise<StoredApiKey>;
  /** The owner's key that holds `clientReference` and is not revoked (at most one can). */
  findLiveApiKeyByReference(ownerId: string, clientReference: string): Promise<StoredApiKey | undefined>;
  /**
   * Replaces the changeable columns of a key, provided its version is still `readVersion`
   * (otherwise throws), and returns it as stored.
   */
  updateApiKey(keyId: string, readVersion: number, next: ApiKeyUpdate): Promise<StoredApiKey>;
  /**
   * Claims an idempotency key for this unit of work, or returns the unexpired record already
   * stored under it. A concurrent claim of the same key waits for this unit of work to end.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined>;
  /** {@link Store.spentSince}, as this unit of work sees it. */
  spentSince(keyId: string, since: number): Promise<bigint>;
  /** Stores the outcome of the claimed operation with the unit of work's other writes. */
  completeIdempotencyKey(scope: IdempotencyScope, outcome: StoredOutcome): Promise<void>;
  /** The audit trail, webhook endpoints, outbox and alert marks, on this unit of work's connection. */
  readonly events: EventTables;
  /** Extension `secret_use`: each secret's use and clients, and a previous secret's retirement, on this unit of work's connection. */
  readonly secretUse: SecretUseTables;
  /** Teams, their keys and their spend, on this unit of work's connection. */
  readonly teams: TeamTables;
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

/** A key's alert settings, as stored (one JSON column): see the contract's `budgetAlertThresholds`. */
export interface KeyAlerts {
  budgetAlertThresholds: number[];
  expiryWarningSeconds: number | null;
  rotateAfterSeconds: number | null;
}

/** A key without alerts: what keys made before webhooks have. */
export const NO_ALERTS: KeyAlerts = Object.freeze({ budgetAlertThresholds: [], expiryWarningSeconds: null, rotateAfterSeconds: null }) as KeyAlerts;

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
  /** When a spend limit starts again (contract/src/spend-windows.ts). */
  resetPeriod: ResetPeriod;
  rateLimitPolicy: RateLimitPolicy | null;
  /** When the key stops authenticating (exclusive), or null. */
  expiresAt: number | null;
  labels: Labels;
  /** What the key's webhooks are told about: budget thresholds, expiry lead time, rotation age. */
  alerts: KeyAlerts;
  /** Extension `rotation_grace`: hash of the secret the last rotation replaced, while it may still work. */
  previousSecretHash: Buffer | null;
  /** Until when {@link previousSecretHash} authenticates (exclusive); null with no previous secret. */
  previousSecretExpiresAt: number | null;
  /**
   * Extension `secret_use`: what the rotation that made the previous secret said of it; null with no
   * previous secret, or for one a rotation made before the extension.
   */
  previousSecret: PreviousSecretTerms | null;
  /** When the previous secret stopped authenticating before (or as) its grace ended, or null while it may still. */
  previousSecretRetiredAt: number | null;
  previousSecretRetiredReason: PreviousSecretRetireReason | null;
  /** The team the key belongs to, or null. */
  teamId: string | null;
  /**
   * Every window of the spend policy when it holds two or more (ordered as the contract orders
   * them; `spendLimitMicros` and `resetPeriod` then hold the first); null for one window or none.
   */
  spendWindows: StoredSpendWindow[] | null;
}



/** Extension `secret_use`: a previous secret's terms, fixed by the rotation that replaced it (one JSON column). */
export interface PreviousSecretTerms {
  /** Prefix and last four characters of the previous secret. */
  hint: string;
  /** It stops once unused this long (seconds), or null. */
  retireWhenIdleSeconds: number | null;
  /** When `key.previous_secret_in_use` is due, if it is still in use then (ms). */
  inUseWarningAt: number;
}

export interface NewApiKey extends ApiKeyUpdate {
  id: string;
  ownerId: string;
  createdAt: number;
  /** Extension `client_reference`: unique among the owner's keys that are not revoked. */
  clientReference: string | null;
}

export interface StoredApiKey extends NewApiKey {
  /** Creation sequence number: strictly increasing, the order of listing and the cursor. */
  seq: number;
  /** Credits spent over the key's life when the record was read. */
  spentMicros: bigint;
  /** When its last model request (of any outcome) began, or null. */
  lastRequestAt: number | null;
}

/**
 * What an idempotency key is scoped to: the owner, the method and the operation (route pattern
 * plus decoded path parameters). The same key may be reused for another operation or owner.
 */
export interface IdempotencyScope {
  ownerId: string;
  method: string;
  /** The route pattern with its decoded parameters, e.g. `/v1/account/api-keys/:keyId/rotate {"keyId":"key_…"}`. */
  operation: string;
  key: string;
}

export interface IdempotencyClaim extends IdempotencyScope {
  /** SHA-256 of the canonical request body. */
  fingerprint: Buffer;
  now: number;
  /** When the stored outcome stops being replayed. */
  expiresAt: number;
}

/** The outcome of an operation as it is stored for replay: the status and the sealed (encrypted) body. */
export interface StoredOutcome {
  status: number;
  sealedBody: Buffer;
}

/** An idempotency record found by a claim: the request it answered and how. */
export interface IdempotencyRecord extends StoredOutcome {
  fingerprint: Buffer;
}

export interface StoredLogEntry extends NewLogEntry {
  seq: number;
}

export interface LogsQuery {
  ownerId: string;
  keyId?: string;
  /** Only logs of keys now in one of these teams. */
  teamIds?: readonly string[];
  beforeSeq: number;
  limit: number;
  now: number;
}

export interface TimelineQuery {
  ownerId: string;
  keyId?: string;
  /** Only logs of keys now in one of these teams. */
  teamIds?: readonly string[];
  since: number;
  until: number;
  bucketMs: number;
  now: number;
}

/** One bucket of one model and status (`bucket`: its start, ms). */
export interface TimelineRow {
  bucket: number;
  model: string;
  status: number;
  requests: number;
  costMicros: bigint;
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

/** What one purge removed. */
export interface PurgedRecords {
  /** Request logs older than their key's `retentionDays`. */
  logs: number;
  /** Idempotency records past their lifetime, and abandoned claims. */
  idempotencyKeys: number;
  /** Webhook deliveries that ended (delivered or failed) more than {@link WEBHOOK_HISTORY_DAYS} days ago, with events left without any. */
  webhookDeliveries: number;
}

/** How long an ended webhook delivery (and its event) stays listed before maintenance removes it. */
export const WEBHOOK_HISTORY_DAYS = 30;
