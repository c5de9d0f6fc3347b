import { windowStartOf } from "@gateway-keys/contract";
import type { Ledger } from "../metering/ledger";
import type { MeteredKey } from "../metering/interfaces";
import { keyWindowsOf } from "../metering/spend-windows";
import type { Store } from "../store/types";
import { budgetThresholdAlert, sendAlertOnce, thresholdMicros, type AlertSubject } from "./alerts";
import { ThresholdWatches } from "./threshold-watches";

/** A key as the alerts need it: what metering knows, and who it is for the event's `data`. */
export type AlertedKey = MeteredKey & AlertSubject;

/** Whether a key metering reserved for carries what an alert names (a stored key does). */
function isAlertedKey(key: MeteredKey): key is AlertedKey {
  const subject = key as Partial<AlertSubject>;
  return typeof subject.ownerId === "string" && typeof subject.name === "string" && typeof subject.labels === "object" && typeof subject.createdAt === "number";
}

/**
 * Sends `key.budget_threshold` off the hot path: each settled charge goes to the key's window
 * watches (threshold-watches.ts), which read the window's spend from the database only when the
 * next threshold may be reached or their estimate is stale, and send each threshold reached once.
 * The periodic scan (alert-scan.ts) checks every key with thresholds too, as a backstop.
 */
export class BudgetAlerts {
  readonly #watches: ThresholdWatches<AlertedKey>;
  /** Called once an alert is committed (the deliverer's nudge). */
  onSent: () => void = () => undefined;

  constructor(store: Store, now: () => number, refreshMs = 1000) {
    this.#watches = new ThresholdWatches<AlertedKey>(
      (key, window, alreadySent) => sendCrossedThresholds(store, key, window.limitMicros, window.start, window.thresholds, now, () => this.onSent(), alreadySent),
      refreshMs,
    );
  }

  /** A settled charge of `micros` on `key` for a request that began at `at`: watched in each window of its spend policy. */
  charged(key: AlertedKey, micros: bigint, at: number): void {
    const thresholds = key.alerts?.budgetAlertThresholds;
    if (!thresholds || thresholds.length === 0) return;
    const windows = keyWindowsOf({ spendLimitMicros: key.spendLimitMicros, resetPeriod: key.resetPeriod, spendWindows: key.spendWindows ?? null });
    for (const window of windows) {
      // A key of several windows is watched, and named in its alerts, window by window.
      const [watchId, subject] = windows.length === 1 ? [key.id, key] : [`${key.id}\0${window.resetPeriod}`, { ...key, spendLimitMicros: window.limitMicros, resetPeriod: window.resetPeriod }];
      this.#watches.charged(watchId, subject, { ...window, start: windowStartOf(window.resetPeriod, at), thresholds }, micros);
    }
  }

  /** Stops the trailing checks (the app is closing). */
  close(): void {
    this.#watches.close();
  }
}

/**
 * Reads the key's spend in the window that began at `windowStart` and sends every threshold it
 * reached (each at most once, by its alert mark). Returns the spend read and how many thresholds
 * (from the lowest) it reached.
 */
export async function sendCrossedThresholds(
  store: Store,
  key: AlertedKey,
  limitMicros: bigint,
  windowStart: number,
  thresholds: readonly number[],
  now: () => number,
  onSent: () => void = () => undefined,
  /** How many of the lowest thresholds are known to be sent already (not claimed again). */
  alreadySent = 0,
): Promise<{ spent: bigint; crossed: number }> {
  const spent = await store.spentSince(key.id, windowStart);
  const crossed = thresholds.filter((threshold) => spent >= thresholdMicros(limitMicros, threshold));
  for (const threshold of crossed.slice(alreadySent)) {
    const alert = budgetThresholdAlert(threshold, limitMicros, spent, key, windowStart);
    if (await store.transaction((tx) => sendAlertOnce(tx, key, alert.mark, alert.data, now()))) onSent();
  }
  return { spent, crossed: crossed.length };
}

/**
 * The ledger with budget alerts: each settled charge goes to {@link BudgetAlerts} after it is
 * committed. The answer to the client does not wait for the check.
 */
export function alertingLedger(ledger: Ledger, alerts: BudgetAlerts): Ledger {
  const keys = new WeakMap<object, AlertedKey>();
  return {
    headroom: (key, at) => ledger.headroom(key, at),
    refusal: (key, micros, at) => ledger.refusal(key, micros, at),
    async reserve(key, micros, at) {
      const reservation = await ledger.reserve(key, micros, at);
      if (reservation && key.alerts && key.alerts.budgetAlertThresholds.length > 0 && isAlertedKey(key)) keys.set(reservation, key);
      return reservation;
    },
    async settle(reservation, entry, outcome) {
      await ledger.settle(reservation, entry, outcome);
      const key = keys.get(reservation);
      if (key && entry.costMicros > 0n) alerts.charged(key, entry.costMicros, entry.createdAt);
    },
    recordUncharged: (entry, outcome) => ledger.recordUncharged(entry, outcome),
  };
}
