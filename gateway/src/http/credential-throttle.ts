import { GatewayError } from "../errors";

/** Token bucket settings: `ratePerSecond` tokens flow in, up to `burst` can be saved up. */
export interface RateLimitOptions {
  /** Sustained requests per second per credential. Default 200. */
  ratePerSecond?: number;
  /** Requests a credential may make at once after being idle. Default 1000. */
  burst?: number;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
}

/**
 * The per-credential throttle (not a key's `rateLimitPolicy`, which metering/rate-limits.ts
 * enforces): one token bucket per credential (or per client address for anonymous calls), in memory: limits
 * are per process, which fits a gateway that owns its database. Idle buckets are dropped by
 * {@link prune}, so memory follows the number of recently active credentials.
 */
export class CredentialThrottle {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions = {}) {
    this.#rate = options.ratePerSecond ?? 200;
    this.#burst = options.burst ?? 1000;
    if (!(this.#rate > 0) || !(this.#burst >= 1)) throw new RangeError("rate limit needs ratePerSecond > 0 and burst >= 1");
  }

  /** Takes one token for `who` at time `now` (ms), or throws 429 `rate_limited` with `Retry-After`. */
  take(who: string, now: number): void {
    let bucket = this.#buckets.get(who);
    if (!bucket) {
      bucket = { tokens: this.#burst, refilledAt: now };
      this.#buckets.set(who, bucket);
    } else if (now > bucket.refilledAt) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * this.#rate);
      bucket.refilledAt = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate));
    throw new GatewayError("rate_limited", `Too many requests with this credential; retry after ${retryAfterSeconds} s.`, {
      headers: { "retry-after": String(retryAfterSeconds) },
    });
  }

  /** Forgets buckets that have refilled completely by `now`: they behave exactly like new ones. */
  prune(now: number): void {
    const fullAfterMs = (this.#burst / this.#rate) * 1000;
    for (const [who, bucket] of this.#buckets) {
      if (now - bucket.refilledAt >= fullAfterMs) this.#buckets.delete(who);
    }
  }
}
