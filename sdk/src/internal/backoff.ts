import { setTimeout as delay } from "node:timers/promises";

/**
 * Arithmetic of waiting between attempts. The decision *whether* to retry lives in client.ts; this
 * file only says *how long*.
 */

/** How long to wait between attempts; every field has a default in the client. */
export interface BackoffSettings {
  /** Delay before the first retry; doubles on each further retry. */
  baseDelayMs: number;
  /** Ceiling of the exponential delay. */
  maxDelayMs: number;
  /** Ceiling on a server's `Retry-After`, so a misconfigured proxy cannot park the caller for hours. */
  maxRetryAfterMs: number;
  /** Source of jitter in [0, 1). */
  random: () => number;
}

/**
 * Jitter takes up to a quarter off each delay, so clients that failed together (a gateway restart)
 * do not all come back in the same millisecond, while the delay never exceeds the documented ceiling.
 */
export const JITTER = 0.25;

/** Delay before retry number `retryIndex` (0 for the first retry): base·2^n capped, minus jitter. */
export function backoffDelay(retryIndex: number, settings: BackoffSettings): number {
  const ceiling = Math.min(settings.baseDelayMs * 2 ** retryIndex, settings.maxDelayMs);
  const random = Math.min(Math.max(settings.random(), 0), 1);
  return Math.round(ceiling * (1 - JITTER * random));
}

/**
 * Reads `Retry-After` (RFC 9110: delay-seconds or an HTTP-date) as milliseconds from `now`.
 * Returns undefined when the header is absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The wait before the next attempt: the server's hint (capped) wins over our own schedule. */
export function retryDelay(retryIndex: number, retryAfterMs: number | undefined, settings: BackoffSettings): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, settings.maxRetryAfterMs);
  return backoffDelay(retryIndex, settings);
}

/** The default wait between attempts: a timer that an AbortSignal cancels. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}
