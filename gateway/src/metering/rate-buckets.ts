/**
 * The arithmetic of a per-minute limit: a bucket that holds a minute's worth (`limit` units) and
 * drains continuously at `limit` per minute. A request that needs `units` fits while the bucket's
 * level plus `units` stays within `limit`. Levels, not timestamps, are kept, so a limit of ten
 * billion tokens per minute is as exact as one of ten requests. The memory limiter uses these
 * functions; the PostgreSQL one (migration 7's gateway_admit_rate) computes the same in SQL.
 */

const MINUTE_MS = 60_000;

/** A bucket's level (units in it) at an instant (ms). */
export interface BucketLevel {
  level: number;
  at: number;
}

/** What a bucket says of a request: whether it fits, and the figures of the `x-ratelimit-*` headers. */
export interface BucketReading {
  fits: boolean;
  /** The level after the request (unchanged when it does not fit). */
  level: number;
  /** Units left for more requests now. */
  remaining: number;
  /** Until the bucket is empty again, ms. */
  resetMs: number;
  /** When it does not fit: until it would, ms (Infinity when `units` exceed the limit itself). */
  retryAfterMs: number;
}

/** The level drained from `bucket.at` to `at`. */
export function drained(bucket: BucketLevel, limit: number, at: number): number {
  return Math.max(0, bucket.level - (Math.max(0, at - bucket.at) * limit) / MINUTE_MS);
}

/** Reads whether `units` fit in a bucket of `limit` per minute at `at`. */
export function readBucket(bucket: BucketLevel, limit: number, units: number, at: number): BucketReading {
  const now = drained(bucket, limit, at);
  const after = now + units;
  const fits = after <= limit;
  const level = fits ? after : now;
  return {
    fits,
    level,
    remaining: Math.max(0, Math.floor(limit - level)),
    resetMs: (level * MINUTE_MS) / limit,
    retryAfterMs: fits ? 0 : units > limit ? Infinity : ((after - limit) * MINUTE_MS) / limit,
  };
}
