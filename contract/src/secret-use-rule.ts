import type { PreviousSecretUse } from "./api-key";

/**
 * Extension `secret_use`: how long a previous secret may go unused and still count as in use when
 * its rotation set no `retireWhenIdleSeconds` — a client that called within the hour is taken to
 * still hold it.
 */
export const IN_USE_WINDOW_SECONDS = 3_600;

/**
 * Whether a key's previous secret is still in use at `now`: it still authenticates (not retired,
 * grace not over), a request presented it since the rotation, and the last one came within its idle
 * window (`retireWhenIdleSeconds`, else {@link IN_USE_WINDOW_SECONDS}). The one rule behind
 * `key.previous_secret_in_use`, the console's warning and the plan's warning that a rotation would
 * cut those clients off. (`lastUsedAt` carries over the rotation, so a secret last used just before
 * it would otherwise count as in use although no client presented it since.)
 */
export function previousSecretInUse(previous: PreviousSecretUse | null, now: number): boolean {
  if (previous === null || previous.retiredAt !== null || Date.parse(previous.expiresAt) <= now) return false;
  if (previous.lastUsedAt === null || previous.requestsSinceRotation === 0) return false;
  const windowMs = (previous.retireWhenIdleSeconds ?? IN_USE_WINDOW_SECONDS) * 1000;
  return now - Date.parse(previous.lastUsedAt) < windowMs;
}
