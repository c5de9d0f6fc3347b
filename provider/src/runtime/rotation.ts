import type * as pulumi from "@pulumi/pulumi";
import { sameJson } from "./compare";
import type { DesiredKey, RotationRecord, StoredKey } from "./shapes";
import { durationMs } from "./time";

/** What `check` decides about the secret for this run. */
export interface RotationPlan {
  /** The `rotation` input to record: present while `rotateAfter` is set. */
  record: RotationRecord | undefined;
  /** Whether this run rotates the secret of an existing key. */
  rotates: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Decides at `check`, from the previous inputs, the program and the clock, whether the secret of
 * an existing key is rotated in this run, and the `rotation` input that records it:
 *
 * - a new `rotationTrigger` value (added or removed too) rotates;
 * - with `rotateAfter`, a secret older than it rotates. Its age counts from `rotation.issuedAt`:
 *   the create, the last rotation the stack made, or, for a key that had no `rotateAfter` before,
 *   the run that added it;
 * - otherwise the previous `rotation` is carried over unchanged, so waiting, refreshing and
 *   re-running never show a change, and one due date gives exactly one rotation (its new
 *   `issuedAt` moves the next due date on).
 */
export function planRotation(
  previous: Partial<DesiredKey> | undefined,
  desired: DesiredKey,
  now: number,
): RotationPlan {
  const due = desired.rotateAfter;
  if (previous === undefined) {
    const reason = desired.adoptKeyId ? "adopted (the stack does not know its secret)" : "created";
    return { record: due ? { issuedAt: iso(now), reason } : undefined, rotates: false };
  }
  if (!sameJson(previous.rotationTrigger, desired.rotationTrigger)) {
    return { record: due ? { issuedAt: iso(now), reason: "rotationTrigger changed" } : undefined, rotates: true };
  }
  if (!due) return { record: undefined, rotates: false };
  const last = previous.rotation;
  if (!last) return { record: { issuedAt: iso(now), reason: `rotateAfter ${due} declared: the schedule starts now` }, rotates: false };
  const dueAt = Date.parse(last.issuedAt) + durationMs(due);
  if (now < dueAt) return { record: last, rotates: false };
  return {
    record: { issuedAt: iso(now), reason: `scheduled: the secret issued ${last.issuedAt} reached rotateAfter ${due}` },
    rotates: true,
  };
}

/**
 * Whether an update rotates the secret: exactly when `check` planned it, which `diff` and `update`
 * read back from what `check` recorded, never from the clock again (a due date crossed between
 * preview and update waits for the next run rather than rotate unannounced or twice).
 */
export function rotationPlanned(stored: StoredKey, desired: DesiredKey): boolean {
  if (!sameJson(stored.rotationTrigger, desired.rotationTrigger)) return true;
  return stored.rotation !== undefined && desired.rotation !== undefined && stored.rotation.issuedAt !== desired.rotation.issuedAt;
}

/** The settings of a rotation's grace that mean something only with a grace period. */
const GRACE_SETTINGS = ["retireWhenIdle", "inUseWarning"] as const;

/**
 * What is wrong with the grace settings together (each alone was checked by its schema):
 * `retireWhenIdle` and `inUseWarning` need a `rotationGracePeriod` (without one the replaced secret
 * stops at once: nothing to retire, nothing to warn about), and the warning must fall inside the grace.
 * A grace period not known until apply is checked by the gateway then.
 */
export function graceSettingFailures(desired: DesiredKey, pending: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  if (pending.rotationGracePeriod !== undefined) return [];
  const graceMs = desired.rotationGracePeriod === undefined ? 0 : durationMs(desired.rotationGracePeriod);
  const failures: pulumi.dynamic.CheckFailure[] = [];
  for (const field of GRACE_SETTINGS) {
    if (desired[field] === undefined || graceMs > 0) continue;
    failures.push({
      property: field,
      reason:
        `needs rotationGracePeriod (e.g. "1h"): without a grace period the replaced secret stops at once when the key rotates, ` +
        `so ${field} would mean nothing. Set rotationGracePeriod, or remove ${field}.`,
    });
  }
  if (desired.inUseWarning !== undefined && graceMs > 0 && durationMs(desired.inUseWarning) >= graceMs) {
    failures.push({
      property: "inUseWarning",
      reason: `must be shorter than rotationGracePeriod (${desired.rotationGracePeriod}): it says how long before the grace ends the gateway warns that the old secret is still in use.`,
    });
  }
  return failures;
}
