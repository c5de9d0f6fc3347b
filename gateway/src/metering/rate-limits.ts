import type { RateLimitPolicy } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import type { BucketFigures, HeldRate, RateAdmission, RateFigures, RateLimits, RateRefusal, RateSubject, RateVerdict } from "./interfaces";
import { drained, readBucket, type BucketLevel, type BucketReading } from "./rate-buckets";

interface SubjectRates {
  requests: BucketLevel;
  tokens: BucketLevel;
  inFlight: number;
}

/** What one subject's buckets say of a request, before anything is taken. */
interface SubjectReading {
  rates: SubjectRates;
  requests: BucketReading | undefined;
  tokens: BucketReading | undefined;
  refusedBy: RateRefusal["by"] | null;
}

/**
 * Rate limits in this process's memory: exact while one process serves a database (SQLite); many
 * processes sharing PostgreSQL count in the database instead (`Store.sharedRates`). The subjects'
 * buckets are read, and taken from only when every one admits, in one synchronous step. Subjects
 * whose buckets drained and that have nothing in flight are forgotten (they read as new).
 */
export class MemoryRateLimits implements RateLimits {
  readonly #subjects = new Map<string, SubjectRates>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  async admit(subjects: readonly RateSubject[], tokens: number, at: number): Promise<RateVerdict> {
    const readings: SubjectReading[] = [];
    const figures: RateFigures[] = [];
    for (const [index, { id, policy }] of subjects.entries()) {
      const reading = this.#read(id, policy, tokens, at);
      readings.push(reading);
      figures.push(figuresOf(policy, reading));
      if (reading.refusedBy !== null) {
        // A place in flight frees when a request ends: no time can be known, a second is a fair retry.
        const retryAfterMs = reading.refusedBy === "requests" ? reading.requests!.retryAfterMs : reading.refusedBy === "tokens" ? reading.tokens!.retryAfterMs : 1000;
        return { admission: null, refusal: { subject: index, by: reading.refusedBy, retryAfterMs }, figures };
      }
    }
    const held: HeldRate[] = [];
    for (const [index, reading] of readings.entries()) {
      const { rates } = reading;
      if (reading.requests) rates.requests = { level: reading.requests.level, at };
      if (reading.tokens) rates.tokens = { level: reading.tokens.level, at };
      rates.inFlight++;
      held.push({ id: subjects[index]!.id, tokensPerMinute: subjects[index]!.policy.tokensPerMinute, slot: null });
    }
    return { admission: { tokens, held }, refusal: null, figures };
  }

  async release(admission: RateAdmission, usedTokens: number, at: number): Promise<void> {
    const unused = admission.tokens - usedTokens;
    for (const { id, tokensPerMinute } of admission.held) {
      const rates = this.#subjects.get(id);
      if (!rates) continue;
      rates.inFlight--;
      if (tokensPerMinute !== undefined && unused > 0) rates.tokens = { level: Math.max(0, drained(rates.tokens, tokensPerMinute, at) - unused), at };
    }
  }

  #read(id: string, policy: RateLimitPolicy, tokens: number, at: number): SubjectReading {
    let rates = this.#subjects.get(id);
    if (!rates) {
      this.#forgetIdle(at);
      rates = { requests: { level: 0, at }, tokens: { level: 0, at }, inFlight: 0 };
      this.#subjects.set(id, rates);
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
    return { rates, requests, tokens: tokenBucket, refusedBy };
  }

  #forgetIdle(at: number): void {
    if (this.#subjects.size < this.#capacity) return;
    for (const [id, rates] of this.#subjects) {
      // A minute after its last request a bucket has drained, whatever its limit.
      if (rates.inFlight === 0 && at - Math.max(rates.requests.at, rates.tokens.at) >= 60_000) this.#subjects.delete(id);
    }
  }
}

/** The figures of a subject's buckets as a request read them. */
function figuresOf(policy: RateLimitPolicy, reading: Pick<SubjectReading, "requests" | "tokens">): RateFigures {
  return {
    ...(reading.requests && { requests: { limit: policy.requestsPerMinute!, remaining: reading.requests.remaining, resetMs: reading.requests.resetMs } }),
    ...(reading.tokens && { tokens: { limit: policy.tokensPerMinute!, remaining: reading.tokens.remaining, resetMs: reading.tokens.resetMs } }),
  };
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

/** The `x-ratelimit-*` headers of a subject's figures: for each per-minute limit it has, its limit, what is left and when it resets. */
export function rateLimitHeaders(figures: RateFigures): Record<string, string> {
  const headers: Record<string, string> = {};
  if (figures.requests) setLimitHeaders(headers, HEADER_NAMES.requests, figures.requests);
  if (figures.tokens) setLimitHeaders(headers, HEADER_NAMES.tokens, figures.tokens);
  return headers;
}

/**
 * The 429 of a refusal, with `Retry-After` (seconds), `retry-after-ms` and the refusing policy's
 * `x-ratelimit-*` headers (its `figures`): `key_rate_limited`, or `team_rate_limited` naming the
 * team when its policy (`policy`) refused.
 */
export function rateLimitRefusal(refusal: RateRefusal, figures: RateFigures, policy: RateLimitPolicy, tokens: number, teamId?: string): GatewayError {
  const headers = rateLimitHeaders(figures);
  const code = teamId === undefined ? "key_rate_limited" : "team_rate_limited";
  const whose = teamId === undefined ? "the key" : `the key's team ${teamId}`;
  const team = teamId === undefined ? {} : { teamId };
  if (refusal.retryAfterMs === Infinity) {
    return new GatewayError(
      code,
      `This request may use ${tokens} tokens, more than ${whose}'s rateLimitPolicy.tokensPerMinute (${policy.tokensPerMinute}) allows in a minute; set a smaller output bound (max_tokens, max_output_tokens) or raise tokensPerMinute.`,
      { headers, ...team },
    );
  }
  const retryMs = Math.max(1, Math.ceil(refusal.retryAfterMs));
  const reason =
    refusal.by === "concurrency"
      ? `${whose} has ${policy.maxConcurrentRequests} requests in flight, its rateLimitPolicy.maxConcurrentRequests`
      : refusal.by === "requests"
        ? `${whose} reached its rateLimitPolicy.requestsPerMinute (${policy.requestsPerMinute})`
        : `${whose} reached its rateLimitPolicy.tokensPerMinute (${policy.tokensPerMinute})`;
  return new GatewayError(code, `Rate limited: ${reason}; retry after ${(retryMs / 1000).toFixed(1)} s.`, {
    headers: { ...headers, "retry-after": String(Math.ceil(retryMs / 1000)), "retry-after-ms": String(retryMs) },
    ...team,
  });
}
