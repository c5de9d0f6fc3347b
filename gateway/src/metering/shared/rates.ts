import type { RateLimitPolicy } from "@gateway-keys/contract";
import type { HeldRate, RateAdmission, RateFigures, RateLimits, RateSubject, RateVerdict } from "../interfaces";

/** What the database answers of one subject of an admission (functions/gateway_admit_rates.sql). */
export interface AdmitRow {
  refused_by: "requests" | "tokens" | "concurrency" | null;
  retry_after_ms: number;
  slot: string | null;
  requests_level: number;
  tokens_level: number;
}

/** The two statements the limiter runs, bound to a database by its store. */
export interface RateStatements {
  /** One row per subject, in order, up to the first that refuses (then nothing was taken from any). */
  admit(subjects: readonly RateSubject[], at: number, tokens: number): Promise<AdmitRow[]>;
  /** Gives back each place: its slot freed, `unusedTokens` returned to its tokens bucket. */
  release(held: readonly HeldRate[], unusedTokens: number, at: number): Promise<void>;
}

/**
 * Rate limits counted in a database many gateway processes share (PostgreSQL), so that together
 * they admit what one key's (or team's) policy allows, not that many times it: an admission under
 * every subject is one atomic step on their bucket rows. A request in flight under a concurrency
 * limit holds a slot row with a lease this process renews while the request lives (see
 * {@link liveSlots}), so a killed process's requests stop counting one lease later. One round trip
 * to admit, one to release, and only for requests under a rate limit policy.
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

  async admit(subjects: readonly RateSubject[], tokens: number, at: number): Promise<RateVerdict> {
    const rows = await this.#statements.admit(subjects, at, tokens);
    const figures = rows.map((row, index) => figuresOf(subjects[index]!.policy, row));
    const refused = rows.findIndex((row) => row.refused_by !== null);
    if (refused !== -1) {
      return { admission: null, refusal: { subject: refused, by: rows[refused]!.refused_by!, retryAfterMs: rows[refused]!.retry_after_ms }, figures };
    }
    if (rows.length !== subjects.length) throw new Error(`the database admitted ${rows.length} of ${subjects.length} rate limit subjects`);
    const held = rows.map((row, index): HeldRate => {
      const slot = row.slot === null ? null : String(row.slot);
      if (slot !== null) this.#live.add(slot);
      return { id: subjects[index]!.id, tokensPerMinute: subjects[index]!.policy.tokensPerMinute, slot };
    });
    return { admission: { tokens, held }, refusal: null, figures };
  }

  async release(admission: RateAdmission, usedTokens: number, at: number): Promise<void> {
    // Whatever the release's fate, the slots stop being renewed: at worst they lapse with their lease.
    for (const { slot } of admission.held) if (slot !== null) this.#live.delete(slot);
    const unused = Math.max(0, admission.tokens - usedTokens);
    const toGiveBack = admission.held.filter(({ slot, tokensPerMinute }) => slot !== null || (unused > 0 && tokensPerMinute !== undefined));
    if (toGiveBack.length > 0) await this.#statements.release(toGiveBack, unused, at);
  }
}

function figuresOf(policy: RateLimitPolicy, row: AdmitRow): RateFigures {
  return {
    ...(policy.requestsPerMinute !== undefined && { requests: bucketFigures(policy.requestsPerMinute, row.requests_level) }),
    ...(policy.tokensPerMinute !== undefined && { tokens: bucketFigures(policy.tokensPerMinute, row.tokens_level) }),
  };
}

function bucketFigures(limit: number, level: number) {
  return { limit, remaining: Math.max(0, Math.floor(limit - level)), resetMs: (level * 60_000) / limit };
}
