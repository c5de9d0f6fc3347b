import { formatUnits, windowEndOf, windowStartOf, type ResetPeriod } from "@gateway-keys/contract";
import type { StoreTransaction } from "../store/types";
import { enqueueEvent } from "./outbox";

const iso = (ms: number): string => new Date(ms).toISOString();

/** The key an alert is about, as its event's `data` names it. */
export interface AlertSubject {
  id: string;
  ownerId: string;
  name: string;
  labels: Record<string, string>;
}

/**
 * Sends one alert at most once: in the caller's unit of work, claims its mark (a unique row per
 * key, kind, instant and threshold) and, only when this claim is the first ever, puts the event in
 * the outbox. Two processes (or one after a restart) racing for the same alert: one claims it.
 */
export async function sendAlertOnce(
  tx: StoreTransaction,
  key: AlertSubject,
  mark: { kind: "budget_threshold" | "expiring" | "expired" | "rotation_due"; at: number; thresholdPpm: number },
  data: Record<string, unknown>,
  now: number,
): Promise<boolean> {
  if (!(await tx.events.claimAlertMark(key.id, mark.kind, mark.at, mark.thresholdPpm, now))) return false;
  await enqueueEvent(tx, {
    ownerId: key.ownerId,
    type: `key.${mark.kind}`,
    keyLabels: key.labels,
    data: { keyId: key.id, ownerId: key.ownerId, name: key.name, labels: key.labels, ...data },
    at: now,
  });
  return true;
}

/** The `key.budget_threshold` alert of one crossed threshold of a spend window. */
export function budgetThresholdAlert(threshold: number, limitMicros: bigint, spentMicros: bigint, resetPeriod: ResetPeriod, at: number) {
  const windowStart = windowStartOf(resetPeriod, at);
  const windowEnd = windowEndOf(resetPeriod, windowStart);
  return {
    mark: { kind: "budget_threshold" as const, at: windowStart, thresholdPpm: Math.round(threshold * 1_000_000) },
    data: {
      threshold,
      limitUnits: formatUnits(limitMicros),
      spentUnits: formatUnits(spentMicros),
      windowStartedAt: iso(windowStart),
      windowResetsAt: windowEnd === null ? null : iso(windowEnd),
    },
  };
}

/** The smallest spend (micros) at which `threshold` of `limitMicros` is reached. */
export function thresholdMicros(limitMicros: bigint, threshold: number): bigint {
  const ppm = BigInt(Math.round(threshold * 1_000_000));
  return (limitMicros * ppm + 999_999n) / 1_000_000n;
}
