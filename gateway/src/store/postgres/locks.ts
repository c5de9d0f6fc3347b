/**
 * Classes of the two-key advisory locks the gateway takes (`pg_advisory_lock(class, id)`), so its
 * locks never meet another application's in the same database. Migration 1 writes `spend` into
 * its function's text: never change these numbers.
 */
export const ADVISORY_LOCK_CLASS = {
  /** Held while migrating; id 0. */
  migrations: 0x6777_0001,
  /** Held by a reservation of spend until it commits; id: `hashtext(key id)`. */
  spend: 0x6777_0002,
} as const;
