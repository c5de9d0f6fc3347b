import type { HeldSpend, NewLogEntry, RequestOutcome, MeteredKey } from "./interfaces";
import type { SpendRefusal } from "./spend-windows";

/** Spend held for one request in flight, to be settled once its cost is known. */
export interface SpendReservation {
  readonly keyId: string;
  readonly micros: bigint;
  /** Where a shared database holds it ({@link SharedSpend}); none in memory, or for a key without a limit. */
  readonly held?: HeldSpend;
  /** The holds of a request with several windows or a team, in a shared database ({@link SharedHolds}). */
  readonly holds?: readonly string[];
  /** The subjects (the key, its team) whose windows it reserved from, in memory. */
  readonly subjects?: readonly string[];
}

/**
 * The spend policy as model calls use it: reserve the most a request can cost before it runs,
 * settle its actual cost once known. A request reserves from every window of its key's policy and
 * of its key's team's ({@link MeteredKey.team}), all or none; the tightest decides. A key with a reset period is checked against its current
 * window (contract/src/spend-windows.ts) at the request's time `at`; a charge counts in the window its
 * request began in. `ledgerFor` (metering/index.ts) picks the implementation a store needs.
 */
export interface Ledger {
  /** Reserves `micros` of the key's limit at time `at`; `undefined` when that would pass the limit. Keys without a limit always fit. */
  reserve(key: MeteredKey, micros: bigint, at: number): Promise<SpendReservation | undefined>;
  /**
   * What the key may still reserve at time `at` (its limit less its window's committed spend and
   * every reservation in flight), or `null` for a key without a limit. A reading, not a hold.
   */
  headroom(key: MeteredKey, at: number): Promise<bigint | null>;
  /**
   * The first window (of the key's, then its team's) that cannot afford `micros` at `at`, as a
   * refusal names it; undefined when every one could. A reading, for the message of a refusal.
   */
  refusal(key: MeteredKey, micros: bigint, at: number): Promise<SpendRefusal | undefined>;
  /**
   * Records the request with its actual cost (`entry.costMicros`, at most the reservation) and
   * releases the reservation. Resolves once the charge is committed: answer only then.
   */
  settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;
  /** Records a request refused or failed before anything was reserved: it costs nothing. */
  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void>;
}
