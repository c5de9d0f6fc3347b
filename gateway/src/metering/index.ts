import type { RateLimits, SpendRecords } from "./interfaces";
import type { Ledger } from "./ledger";
import { MemoryLedger } from "./memory-ledger";
import { MemoryRateLimits } from "./rate-limits";
import { SharedLedger } from "./shared-ledger";

export type { Ledger, SpendReservation } from "./ledger";

/**
 * The ledger a store needs: reservations in the database when many processes share it
 * ({@link Store.sharedSpend}), else in this process's memory.
 */
export function ledgerFor(store: SpendRecords): Ledger {
  return store.sharedSpend ? new SharedLedger(store, store.sharedSpend, store.sharedHolds) : new MemoryLedger(store);
}

/** The rate limits a store needs: counted in the database when many processes share it, else in memory. */
export function rateLimitsFor(store: SpendRecords): RateLimits {
  return store.sharedRates ?? new MemoryRateLimits();
}
