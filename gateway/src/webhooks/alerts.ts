import { formatUnits, spendWindowOf, type ResetPeriod } from "@gateway-keys/contract";
import type { StoreTransaction } from "../store/types";
import { enqueueEvent } from "./outbox";

const iso = (ms: number): string => new Date(ms).toISOString();

/** The key an alert is about, as its event's `data` names it. */
export interface AlertSubject {
  id: string;
  ownerId: string;
  name: string;
  labels: Record<string, string>;
  /** When the key was created: where a lifetime spend window starts. */
  createdAt: number;
}

/**
 * Sends one alert at most once: in the caller's unit of work, claims its mark (a unique row per
 * key, kind, instant and threshold) and, only when this claim is the first ever, puts the event in
 * the outbox. Two processes (or one after a restart) racing for the same alert: one claims it.
 */
export async function sendAlertOnce(
  tx: StoreTransaction,
  key: AlertSubject,
  mark: { kind: "budget_threshold" | "expiring" | "expired" | "rotation_due"; at: number; thresholdPpm: number; markKind?: string },
  data: Record<string, unknown>,
  now: number,
): Promise<boolean> {
  if (!(await tx.events.claimAlertMark(key.id, mark.markKind ?? mark.kind, mark.at, mark.thresholdPpm, now))) return false;
  await enqueueEvent(tx, {
    ownerId: key.ownerId,
    type: `key.${mark.kind}`,
    keyLabels: key.labels,
    data: { keyId: key.id, ownerId: key.ownerId, name: key.name, labels: key.labels, ...data },
    at: now,
  });
  return true;
}

/**
 * The `key.budget_threshold` alert of one crossed threshold of the key's spend window that holds
 * `at`: the window as the key record shows it (a lifetime window from the key's creation). Its mark
 * is the window's start as spend counts it, so each window's threshold is sent once.
 */
export function budgetThresholdAlert(
  threshold: number,
  limitMicros: bigint,
  spentMicros: bigint,
  key: { resetPeriod: ResetPeriod; createdAt: number; spendWindows?: readonly unknown[] | null },
  at: number,
) {
  const window = spendWindowOf(key.resetPeriod, at, key.createdAt);
  // A key of several windows marks each window apart (a daily and a monthly one may start at the same instant).
  const several = (key.spendWindows?.length ?? 0) >= 2;
  return {
    mark: {
      kind: "budget_threshold" as const,
      at: window.start,
      thresholdPpm: Math.round(threshold * 1_000_000),
      ...(several && { markKind: `budget_threshold:${key.resetPeriod}` }),
    },
    data: {
      resetPeriod: key.resetPeriod,
      threshold,
      limitUnits: formatUnits(limitMicros),
      spentUnits: formatUnits(spentMicros),
      windowStartedAt: iso(window.startedAt),
      windowResetsAt: window.endsAt === null ? null : iso(window.endsAt),
    },
  };
}

/** The smallest spend (micros) at which `threshold` of `limitMicros` is reached. */
export function thresholdMicros(limitMicros: bigint, threshold: number): bigint {
  const ppm = BigInt(Math.round(threshold * 1_000_000));
  return (limitMicros * ppm + 999_999n) / 1_000_000n;
}
