import type { ResetPeriod } from "./policies";

const DAY_MS = 86_400_000;

/**
 * When the spend window of `period` that holds the instant `at` (ms since the epoch) began: the UTC
 * calendar boundary at or before it (00:00 of the day; of Monday; of the 1st). A lifetime cap
 * (`never`) has one window, from the epoch. Windows are computed, never stored, so they cannot
 * drift and need no job to start.
 */
export function windowStartOf(period: ResetPeriod, at: number): number {
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  switch (period) {
    case "never":
      return 0;
    case "daily":
      return day;
    case "weekly":
      // 1970-01-01 was a Thursday: Monday is three days before the epoch's weekday count.
      return day - (((Math.floor(at / DAY_MS) + 3) % 7) * DAY_MS);
    case "monthly": {
      const date = new Date(at);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    }
  }
}

/** When the window that began at `start` ends (the next one's start), or `null` for a lifetime cap. */
export function windowEndOf(period: ResetPeriod, start: number): number | null {
  switch (period) {
    case "never":
      return null;
    case "daily":
      return start + DAY_MS;
    case "weekly":
      return start + 7 * DAY_MS;
    case "monthly": {
      const date = new Date(start);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    }
  }
}

/**
 * The spend window of `period` that holds `at`, as every reader shows it (the key record's
 * `spendWindow`, `…/spend-windows`, the `key.budget_threshold` event): `start` is where its spend
 * is counted from ({@link windowStartOf}: the epoch for a lifetime cap); `startedAt` when the window
 * began for the key — a lifetime window at the key's creation (`keyCreatedAt`), any other at its
 * boundary; `endsAt` the next window's start, `null` for a lifetime cap.
 */
export function spendWindowOf(period: ResetPeriod, at: number, keyCreatedAt: number): { start: number; startedAt: number; endsAt: number | null } {
  const start = windowStartOf(period, at);
  return { start, startedAt: period === "never" ? keyCreatedAt : start, endsAt: windowEndOf(period, start) };
}

/** The UTC day that holds `at`: where a charge is kept, so any window's spend is a sum of days. */
export function dayOf(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}
