import type { RateLimitPolicy, ResetPeriod } from "@gateway-keys/contract";

/**
 * What metering needs of the rest of the gateway, declared here so that the stores implement it
 * (store/ imports metering/, never the other way): where spend and rate limits are counted when
 * many processes share a database, the request records a settle commits, the key changes that
 * make cached figures stale, and the few fields of a key that its spend depends on.
 */

/** One window of a stored spend policy (a key's or a team's): a limit in micro-credits that starts again each `resetPeriod`. */
export interface StoredSpendWindow {
  limitMicros: bigint;
  resetPeriod: ResetPeriod;
}

/** The fields of a key that its spend depends on (a stored key has them all). */
export interface MeteredKey {
  readonly id: string;
  /** The key's spend limit in micro-credits; `null` for no limit. */
  readonly spendLimitMicros: bigint | null;
  /** The window the limit applies to. */
  readonly resetPeriod: ResetPeriod;
  /** Fractions of the limit whose crossing is announced (webhooks/budget-alerts.ts); none when absent. */
  readonly alerts?: { readonly budgetAlertThresholds: readonly number[] };
  /** Every window when the key's policy holds two or more (then the limit and period above are the first); absent or null otherwise. */
  readonly spendWindows?: readonly StoredSpendWindow[] | null;
  /** When the key was made: where its lifetime window begins. */
  readonly createdAt?: number;
  /** The key's team, whose windows a request reserves from too; absent or null for none. */
  readonly team?: MeteredTeam | null;
}

/** The fields of a team that its keys' spend depends on. */
export interface MeteredTeam {
  readonly id: string;
  /** Its spend policy's windows; none for no team cap. */
  readonly spendWindows: readonly StoredSpendWindow[];
  readonly createdAt: number;
}

/**
 * Who a window belongs to, and its windows with where each one's spend is counted from (its
 * calendar window at the request's time): a request of a key in a team reserves from both.
 */
export interface SpendSubject {
  readonly id: string;
  readonly kind: "key" | "team";
  readonly windows: readonly { readonly start: number; readonly limitMicros: bigint }[];
}

/**
 * The records metering writes and reads through a store: a request's log row with its usage and
 * charge (one commit), what a key spent since a time, and — in a store many processes share —
 * where reservations and rate limits are counted.
 */
export interface SpendRecords {
  /** Records one request: its log row (as the key's logging policy says), usage counters and charge, in one commit. */
  recordRequest(entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;
  /** What the key was charged for requests at or after `since`. */
  spentSince(keyId: string, since: number): Promise<bigint>;
  /** Reservations held in the shared database; absent when one process owns the store. */
  readonly sharedSpend?: SharedSpend;
  /** Rate limits counted in the shared database; absent when one process owns the store. */
  readonly sharedRates?: RateLimits;
  /** Holds of requests with several windows or a team, in the shared database; absent when one process owns the store. */
  readonly sharedHolds?: SharedHolds;
  /** What a team was charged for requests that began at or after `since`. */
  teamSpentSince(teamId: string, since: number): Promise<bigint>;
}

/**
 * Spend held in the database for one request (see {@link SharedSpend}): its own reservation row,
 * or `drawn` micros drawn on a holding row this process keeps for the key.
 */
export interface HeldSpend {
  readonly row: string;
  /** Micros drawn on the holding `row`; `null` when `row` is the request's own reservation. */
  readonly drawn: bigint | null;
}

/**
 * Reservations of spend in a database many processes share (PostgreSQL). A reservation has a lease
 * that the process holding it renews while it lives; a reservation whose lease ran out (its
 * process died) no longer counts, and is swept.
 */
export interface SharedSpend {
  /**
   * Reserves `micros` of the key's spend limit, as the database has it, in one atomic step across
   * every process: the spend of the key's window at `at` + live reservations + `micros` must stay
   * within the limit. Returns where it is held, or `undefined` when it would pass the limit.
   */
  reserve(keyId: string, micros: bigint, at: number): Promise<HeldSpend | undefined>;
  /** Records the request (log row, usage counters and spend with its charge) and releases what it held, in one commit. */
  settle(held: HeldSpend, entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;
  /** The key's limit less its window's spend at `at` and every live reservation (`null` without a limit). */
  headroom(keyId: string, at: number): Promise<bigint | null>;
}

/**
 * Holds of spend in a database many processes share, for requests whose key has several windows
 * or a team: one hold per request and subject, whose sum is what the subject has in flight. A hold
 * has a lease as a reservation has.
 */
export interface SharedHolds {
  /**
   * Reserves `micros` from every window of every subject (a key of several windows, or a key and
   * its team) in one atomic step across every process: each window's spend + what its subject
   * holds in flight + `micros` must stay within its limit. Returns the holds (one per subject),
   * or the index, over the subjects' windows in order, of the first window that cannot afford it.
   */
  reserveHolds(subjects: readonly SpendSubject[], micros: bigint): Promise<{ holds: readonly string[] } | { refusedWindow: number }>;
  /** What each window of the subjects could still reserve (limit less spend and holds), in order: a reading, not a hold. */
  holdHeadroom(subjects: readonly SpendSubject[]): Promise<bigint[]>;
  /** Records the request and drops its holds, in one commit. */
  settleHolds(holds: readonly string[], entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;
}

/** One limit a request is admitted under: a key's rate limit policy, its team's, or a route's quota, counted under `id`. */
export interface RateSubject {
  readonly id: string;
  readonly policy: RateLimitPolicy;
}

/** A request's place under one subject's limit, to give back when it ends. */
export interface HeldRate {
  readonly id: string;
  readonly tokensPerMinute: number | undefined;
  /** Its row among the subject's requests in flight, in a shared database; null in memory or without a concurrency limit. */
  readonly slot: string | null;
}

/** A request admitted under every subject's limit, to release when it ends. */
export interface RateAdmission {
  /** Tokens taken from each subject's tokens-per-minute bucket (those the request did not use go back). */
  readonly tokens: number;
  /** Its place under each subject, in the order they were admitted under. */
  readonly held: readonly HeldRate[];
}

/** One per-minute limit's figures, as OpenAI's `x-ratelimit-*` headers give them. */
export interface BucketFigures {
  limit: number;
  remaining: number;
  /** Until the bucket is empty again, ms. */
  resetMs: number;
}

/** A subject's per-minute limits as one request found them (after it, when admitted): each one set in its policy. */
export interface RateFigures {
  requests?: BucketFigures;
  tokens?: BucketFigures;
}

/** Which subject's limit refused a request, and for how long. */
export interface RateRefusal {
  /** The refusing subject's place in the subjects asked. */
  subject: number;
  by: "requests" | "tokens" | "concurrency";
  /** Until the refusing limit would admit it, ms (Infinity: never, the request is larger than the limit). */
  retryAfterMs: number;
}

/** What the subjects' limits say of one request: admitted under all of them, or refused by one (and taken from none). */
export interface RateVerdict {
  /** Set when admitted: release it when the request ends. */
  admission: RateAdmission | null;
  /** Set when refused. */
  refusal: RateRefusal | null;
  /** Each subject's figures, in order; when refused, those up to the refusing one's. */
  figures: readonly RateFigures[];
}

/**
 * Rate limits as model calls use them: a request is admitted under its key's policy and its key's
 * team's in one step — one request and its most tokens taken from each one's per-minute buckets,
 * a place among each one's requests in flight — or under none, before its spend is reserved; and
 * released when it ends (the tokens it did not use given back, its places freed). Routes' quotas
 * are counted the same way. In memory for a store one process owns; in the database when many share it.
 */
export interface RateLimits {
  /** Admits a request of up to `tokens` tokens at `at` (ms, the gateway's clock) under every subject's limits, or says which refuses it. */
  admit(subjects: readonly RateSubject[], tokens: number, at: number): Promise<RateVerdict>;
  /** Ends an admitted request that used `usedTokens` (at most what it was admitted with). */
  release(admission: RateAdmission, usedTokens: number, at: number): Promise<void>;
}

/** Hears of key changes (see {@link Store.keyChanges}). */
export interface KeyChangeListener {
  /** The key changed, through any process: a cached copy is stale. */
  changed(keyId: string): void;
  /** Changes may now go unheard (the feed lost its connection): cached keys can no longer be trusted. */
  interrupted(): void;
  /** Changes are heard again, from now on. */
  resumed(): void;
}

/** Tells of key changes committed by any process sharing the database. */
export interface KeyChangeFeed {
  /**
   * Starts telling `listener` of changes; if the feed is interrupted right now, `interrupted` is
   * called at once. Returns the function that stops it.
   */
  subscribe(listener: KeyChangeListener): () => void;
}

/** How a model request ended, for the usage counters. */
export type RequestOutcome = "succeeded" | "rejected" | "failed";

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
  /** The team the request was charged to (its key's when it reserved), or null. */
  teamId: string | null;
  /** The request's fields not carried to the model (named to the client in x-gateway-dropped-fields); empty when none. */
  droppedFields: readonly string[];
  /** The route that answered (`provider/model`, docs/operators/routing.md); null when none did, or before the column existed. */
  route: string | null;
}

