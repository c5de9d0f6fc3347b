/**
 * Classes of the two-key advisory locks the gateway takes (`pg_advisory_lock(class, id)`), so its
 * locks never meet another application's in the same database. Never change these numbers.
 */
export const ADVISORY_LOCK_CLASS = {
  /** Held while migrating; id 0. */
  migrations: 0x6777_0001,
  /** Was held by migration 1's gateway_reserve_spend (dropped by migration 5); kept so no new lock reuses it. */
  spend: 0x6777_0002,
} as const;
