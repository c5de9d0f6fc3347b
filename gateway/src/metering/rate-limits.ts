import type { RateLimitPolicy } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import type { BucketFigures, RateAdmission, RateLimits, RateVerdict } from "./interfaces";
import { drained, readBucket, type BucketLevel } from "./rate-buckets";

interface KeyRates {
  requests: BucketLevel;
  tokens: BucketLevel;
  inFlight: number;
}

/**
 * Rate limits in this process's memory: exact while one process serves a database (SQLite); many
 * processes sharing PostgreSQL count in the database instead (`Store.sharedRates`). Keys whose
 * buckets drained and that have nothing in flight are forgotten (they read as new).
 */
export class MemoryRateLimits implements RateLimits {
  readonly #keys = new Map<string, KeyRates>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  async admit(keyId: string, policy: RateLimitPolicy, tokens: number, at: number): Promise<RateVerdict> {
    let rates = this.#keys.get(keyId);
    if (!rates) {
      this.#forgetIdle(at);
      rates = { requests: { level: 0, at }, tokens: { level: 0, at }, inFlight: 0 };
      this.#keys.set(keyId, rates);
    }
    const requests = policy.requestsPerMinute === undefined ? undefined : readBucket(rates.requests, policy.requestsPerMinute, 1, at);
    const tokenBucket = policy.tokensPerMinute === undefined ? undefined : readBucket(rates.tokens, policy.tokensPerMinute, tokens, at);
    const refusedBy =
      policy.maxConcurrentRequests !== undefined && rates.inFlight >= policy.maxConcurrentRequests
        ? "concurrency"
        : requests?.fits === false
          ? "requests"
          : tokenBucket?.fits === false
            ? "tokens"
            : null;
    if (refusedBy === null) {
      if (requests) rates.requests = { level: requests.level, at };
      if (tokenBucket) rates.tokens = { level: tokenBucket.level, at };
      rates.inFlight++;
    }
    return {
      admission: refusedBy === null ? { keyId, tokens, tokensPerMinute: policy.tokensPerMinute, slot: null } : null,
      refusedBy,
      // A place in flight frees when a request ends: no time can be known, a second is a fair retry.
      retryAfterMs: refusedBy === "requests" ? requests!.retryAfterMs : refusedBy === "tokens" ? tokenBucket!.retryAfterMs : refusedBy ? 1000 : 0,
      ...(requests && { requests: { limit: policy.requestsPerMinute!, remaining: requests.remaining, resetMs: requests.resetMs } }),
      ...(tokenBucket && { tokens: { limit: policy.tokensPerMinute!, remaining: tokenBucket.remaining, resetMs: tokenBucket.resetMs } }),
    };
  }

  async release(admission: RateAdmission, usedTokens: number, at: number): Promise<void> {
    const rates = this.#keys.get(admission.keyId);
    if (!rates) return;
    rates.inFlight--;
    const unused = admission.tokens - usedTokens;
    if (admission.tokensPerMinute !== undefined && unused > 0) {
      rates.tokens = { level: Math.max(0, drained(rates.tokens, admission.tokensPerMinute, at) - unused), at };
    }
  }

  #forgetIdle(at: number): void {
    if (this.#keys.size < this.#capacity) return;
    for (const [keyId, rates] of this.#keys) {
      // A minute after its last request a bucket has drained, whatever its limit.
      if (rates.inFlight === 0 && at - Math.max(rates.requests.at, rates.tokens.at) >= 60_000) this.#keys.delete(keyId);
    }
  }
}

/** `6m0s`, `1.5s`, `20ms`: the durations of OpenAI's `x-ratelimit-reset-*` headers. */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms - minutes * 60_000) / 10) / 100;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/** The header names of each per-minute limit, spelled once (they go on every answer of a key with a rate policy). */
const HEADER_NAMES = {
  requests: { limit: "x-ratelimit-limit-requests", remaining: "x-ratelimit-remaining-requests", reset: "x-ratelimit-reset-requests" },
  tokens: { limit: "x-ratelimit-limit-tokens", remaining: "x-ratelimit-remaining-tokens", reset: "x-ratelimit-reset-tokens" },
} as const;

function setLimitHeaders(headers: Record<string, string>, names: (typeof HEADER_NAMES)["requests" | "tokens"], figures: BucketFigures): void {
  headers[names.limit] = String(figures.limit);
  headers[names.remaining] = String(figures.remaining);
  headers[names.reset] = formatResetDuration(figures.resetMs);
}

/** The `x-ratelimit-*` headers of a verdict: for each per-minute limit the key has, its limit, what is left and when it resets. */
export function rateLimitHeaders(verdict: RateVerdict): Record<string, string> {
  const headers: Record<string, string> = {};
  if (verdict.requests) setLimitHeaders(headers, HEADER_NAMES.requests, verdict.requests);
  if (verdict.tokens) setLimitHeaders(headers, HEADER_NAMES.tokens, verdict.tokens);
  return headers;
}

/**
 * The 429 of a refused verdict, with `Retry-After` (seconds), `retry-after-ms` and the `x-ratelimit-*`
 * headers: `key_rate_limited`, or `team_rate_limited` naming the team when its policy refused.
 */
export function rateLimitRefusal(verdict: RateVerdict, policy: RateLimitPolicy, tokens: number, teamId?: string): GatewayError {
  const headers = rateLimitHeaders(verdict);
  const code = teamId === undefined ? "key_rate_limited" : "team_rate_limited";
  const whose = teamId === undefined ? "the key" : `the key's team ${teamId}`;
  const team = teamId === undefined ? {} : { teamId };
  if (verdict.retryAfterMs === Infinity) {
    return new GatewayError(
      code,
      `This request may use ${tokens} tokens, more than ${whose}'s rateLimitPolicy.tokensPerMinute (${policy.tokensPerMinute}) allows in a minute; set a smaller output bound (max_tokens, max_output_tokens) or raise tokensPerMinute.`,
      { headers, ...team },
    );
  }
  const retryMs = Math.max(1, Math.ceil(verdict.retryAfterMs));
  const reason =
    verdict.refusedBy === "concurrency"
      ? `${whose} has ${policy.maxConcurrentRequests} requests in flight, its rateLimitPolicy.maxConcurrentRequests`
      : verdict.refusedBy === "requests"
        ? `${whose} reached its rateLimitPolicy.requestsPerMinute (${policy.requestsPerMinute})`
        : `${whose} reached its rateLimitPolicy.tokensPerMinute (${policy.tokensPerMinute})`;
  return new GatewayError(code, `Rate limited: ${reason}; retry after ${(retryMs / 1000).toFixed(1)} s.`, {
    headers: { ...headers, "retry-after": String(Math.ceil(retryMs / 1000)), "retry-after-ms": String(retryMs) },
    ...team,
  });
}
