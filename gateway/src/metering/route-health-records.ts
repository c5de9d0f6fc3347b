/**
 * The shared record of routes' failures and cooldowns (docs/operators/routing.md#cooldowns):
 * dispatch/route-health.ts decides with it; the memory one serves one process (SQLite), the
 * PostgreSQL store's (migration 13) every process sharing the database — as the key rate limits
 * are counted (rate-limits.ts, shared/rates.ts).
 */

/** When failures cool a route, in ms. */
export interface CooldownPolicy {
  failures: number;
  windowMs: number;
  cooldownMs: number;
}

/** The cooldowns of a config that does not set its own: 3 failures in 30 s cool a route for 30 s. */
export const DEFAULT_COOLDOWN: CooldownPolicy = Object.freeze({ failures: 3, windowMs: 30_000, cooldownMs: 30_000 });

/** A route that is cooling down, or waiting for its probe to answer. */
export interface CoolingRoute {
  routeId: string;
  /** Until when it is skipped (ms); after it, one probe goes through. */
  until: number;
}

/** The shared record of routes' failures and cooldowns: in memory for one process, in PostgreSQL for many. */
export interface RouteHealthRecords {
  /**
   * Counts one failure of the route at `at`; returns until when it now cools (ms), or null while
   * it has failed fewer than `policy.failures` times in the window. A failure of a route already
   * cooling (its probe) cools it again for `cooldownMs`.
   */
  failed(routeId: string, at: number, policy: CooldownPolicy, cooldownMs: number): Promise<number | null>;
  /** Takes the single probe of a route whose cooldown is over; false when another request holds it (for `leaseMs`). */
  claimProbe(routeId: string, at: number, leaseMs: number): Promise<boolean>;
  /** The probe answered: the route takes full traffic, its failures forgotten. */
  recovered(routeId: string): Promise<void>;
  /** Every route cooling down or waiting for its probe. */
  cooling(): Promise<CoolingRoute[]>;
}

interface HealthRow {
  failures: number;
  windowStart: number;
  coolingUntil: number | null;
  probeUntil: number;
}

/** The record in this process's memory: exact while one process serves the database (SQLite). */
export class MemoryRouteHealth implements RouteHealthRecords {
  readonly #rows = new Map<string, HealthRow>();

  async failed(routeId: string, at: number, policy: CooldownPolicy, cooldownMs: number): Promise<number | null> {
    const row = this.#rows.get(routeId) ?? { failures: 0, windowStart: at, coolingUntil: null, probeUntil: 0 };
    this.#rows.set(routeId, row);
    if (row.coolingUntil !== null) {
      row.coolingUntil = Math.max(row.coolingUntil, at + cooldownMs);
      row.probeUntil = 0;
      return row.coolingUntil;
    }
    if (at - row.windowStart > policy.windowMs) Object.assign(row, { failures: 0, windowStart: at });
    row.failures++;
    if (row.failures < policy.failures) return null;
    row.coolingUntil = at + cooldownMs;
    row.failures = 0;
    return row.coolingUntil;
  }

  async claimProbe(routeId: string, at: number, leaseMs: number): Promise<boolean> {
    const row = this.#rows.get(routeId);
    if (!row || row.coolingUntil === null || row.coolingUntil > at || row.probeUntil > at) return false;
    row.probeUntil = at + leaseMs;
    return true;
  }

  async recovered(routeId: string): Promise<void> {
    this.#rows.delete(routeId);
  }

  async cooling(): Promise<CoolingRoute[]> {
    return [...this.#rows].filter(([, row]) => row.coolingUntil !== null).map(([routeId, row]) => ({ routeId, until: row.coolingUntil! }));
  }
}
