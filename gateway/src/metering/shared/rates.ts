import type { RateLimitPolicy } from "@gateway-keys/contract";
import type { RateAdmission, RateLimits, RateVerdict } from "../interfaces";

/** What the database answers to an admission (migration 7's gateway_admit_rate). */
export interface AdmitRow {
  refused_by: "requests" | "tokens" | "concurrency" | null;
  retry_after_ms: number;
  slot: string | null;
  requests_level: number;
  tokens_level: number;
}

/** The two statements the limiter runs, bound to a database by its store. */
export interface RateStatements {
  admit(keyId: string, at: number, policy: RateLimitPolicy, tokens: number): Promise<AdmitRow>;
  release(keyId: string, slot: string | null, unusedTokens: number, tokensPerMinute: number | null, at: number): Promise<void>;
}

/**
 * Rate limits counted in a database many gateway processes share (PostgreSQL), so that together
 * they admit what one key's policy allows, not that many times it: each admission is one atomic
 * step on the key's bucket row. A request in flight under a concurrency limit holds a slot row
 * with a lease this process renews while the request lives (see {@link liveSlots}), so a killed
 * process's requests stop counting one lease later. One round trip to admit, one to release, and
 * only for keys with a rate limit policy.
 */
export class SharedRateLimits implements RateLimits {
  readonly #statements: RateStatements;
  readonly #live = new Set<string>();

  constructor(statements: RateStatements) {
    this.#statements = statements;
  }

  /** The slots of requests in flight in this process: the ones its lease renewal keeps. */
  liveSlots(): string[] {
    return [...this.#live];
  }

  async admit(keyId: string, policy: RateLimitPolicy, tokens: number, at: number): Promise<RateVerdict> {
    const row = await this.#statements.admit(keyId, at, policy, tokens);
    const admitted = row.refused_by === null;
    if (admitted && row.slot !== null) this.#live.add(String(row.slot));
    return {
      admission: admitted ? { keyId, tokens, tokensPerMinute: policy.tokensPerMinute, slot: row.slot === null ? null : String(row.slot) } : null,
      refusedBy: row.refused_by,
      retryAfterMs: row.retry_after_ms,
      ...(policy.requestsPerMinute !== undefined && { requests: figures(policy.requestsPerMinute, row.requests_level) }),
      ...(policy.tokensPerMinute !== undefined && { tokens: figures(policy.tokensPerMinute, row.tokens_level) }),
    };
  }

  async release(admission: RateAdmission, usedTokens: number, at: number): Promise<void> {
    // Whatever the release's fate, the slot stops being renewed: at worst it lapses with its lease.
    if (admission.slot !== null) this.#live.delete(admission.slot);
    const unused = Math.max(0, admission.tokens - usedTokens);
    if (admission.slot === null && (unused === 0 || admission.tokensPerMinute === undefined)) return;
    await this.#statements.release(admission.keyId, admission.slot, unused, admission.tokensPerMinute ?? null, at);
  }
}

function figures(limit: number, level: number) {
  return { limit, remaining: Math.max(0, Math.floor(limit - level)), resetMs: (level * 60_000) / limit };
}
