import type { PreviousSecretUse } from "./api-key";

/**
 * Extension `secret_use`: how long a previous secret may go unused and still count as in use when
 * its rotation set no `retireWhenIdleSeconds` — a client that called within the hour is taken to
 * still hold it.
 */
export const IN_USE_WINDOW_SECONDS = 3_600;

/**
 * Whether a key's previous secret is still in use at `now`: it still authenticates (not retired,
 * grace not over) and a request presented it within its idle window (`retireWhenIdleSeconds`, else
 * {@link IN_USE_WINDOW_SECONDS}). The one rule behind `key.previous_secret_in_use`, the console's
 * warning and the plan's warning that a rotation would cut those clients off.
 */
export function previousSecretInUse(previous: PreviousSecretUse | null, now: number): boolean {
  if (previous === null || previous.retiredAt !== null || Date.parse(previous.expiresAt) <= now) return false;
  if (previous.lastUsedAt === null) return false;
  const windowMs = (previous.retireWhenIdleSeconds ?? IN_USE_WINDOW_SECONDS) * 1000;
  return now - Date.parse(previous.lastUsedAt) < windowMs;
}
