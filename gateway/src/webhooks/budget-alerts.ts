import { windowStartOf } from "@gateway-keys/contract";
import type { Ledger } from "../metering/ledger";
import type { MeteredKey } from "../metering/interfaces";
import type { Store, StoredApiKey } from "../store/types";
import { budgetThresholdAlert, sendAlertOnce, thresholdMicros } from "./alerts";

/** What this process knows of one key's current window. */
interface WindowWatch {
  windowStart: number;
  thresholds: readonly number[];
  /** The window's spend as last read from the database, plus this process's charges since. */
  estimateMicros: bigint;
  /** How many of `thresholds` (in order) are known to be sent. */
  sent: number;
  readAt: number;
  checking: boolean;
}

/**
 * Watches charges for crossed budget thresholds, off the hot path: a settle adds its cost to this
 * process's estimate of the key's window spend, and only when that estimate reaches the next
 * threshold — or the estimate is older than `refreshMs`, since other processes spend too — is the
 * window's spend read from the database and each crossed threshold sent once (the database's
 * alert marks decide "once", not this memory, so a restart or another process never repeats one).
 */
export class BudgetAlerts {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #refreshMs: number;
  readonly #watches = new Map<string, WindowWatch>();
  /** Called once an alert is committed (the deliverer's nudge). */
  onSent: () => void = () => undefined;

  constructor(store: Store, now: () => number, refreshMs = 1000) {
    this.#store = store;
    this.#now = now;
    this.#refreshMs = refreshMs;
  }

  /** A settled charge of `micros` on `key` for a request that began at `at`. */
  charged(key: MeteredKey, micros: bigint, at: number): void {
    const thresholds = key.alerts?.budgetAlertThresholds;
    if (!thresholds || thresholds.length === 0 || key.spendLimitMicros === null) return;
    const windowStart = windowStartOf(key.resetPeriod, at);
    let watch = this.#watches.get(key.id);
    if (!watch || watch.windowStart !== windowStart || watch.thresholds !== thresholds) {
      watch = { windowStart, thresholds, estimateMicros: 0n, sent: 0, readAt: Number.NEGATIVE_INFINITY, checking: false };
      this.#watches.set(key.id, watch);
    }
    watch.estimateMicros += micros;
    const next = thresholds[watch.sent];
    if (next === undefined || watch.checking) return;
    const now = this.#now();
    if (watch.estimateMicros < thresholdMicros(key.spendLimitMicros, next) && now - watch.readAt < this.#refreshMs) return;
    watch.checking = true;
    void this.#check(key as StoredApiKey, key.spendLimitMicros, watch, at).finally(() => {
      watch.checking = false;
    });
  }

  async #check(key: StoredApiKey, limitMicros: bigint, watch: WindowWatch, at: number): Promise<void> {
    try {
      const spent = await this.#store.spentSince(key.id, watch.windowStart);
      watch.estimateMicros = spent;
      watch.readAt = this.#now();
      const crossed = watch.thresholds.filter((threshold) => spent >= thresholdMicros(limitMicros, threshold));
      for (const threshold of crossed.slice(watch.sent)) {
        const alert = budgetThresholdAlert(threshold, limitMicros, spent, key.resetPeriod, at);
        if (await this.#store.transaction((tx) => sendAlertOnce(tx, key, alert.mark, alert.data, this.#now()))) this.onSent();
      }
      watch.sent = Math.max(watch.sent, crossed.length);
    } catch {
      // Not sent: the next charge (or the next refresh) checks again, and the marks keep it once-only.
    }
  }
}

/**
 * The ledger with budget alerts: each settled charge goes to {@link BudgetAlerts} after it is
 * committed. The answer to the client does not wait for the check.
 */
export function alertingLedger(ledger: Ledger, alerts: BudgetAlerts): Ledger {
  const keys = new WeakMap<object, MeteredKey>();
  return {
    headroom: (key, at) => ledger.headroom(key, at),
    async reserve(key, micros, at) {
      const reservation = await ledger.reserve(key, micros, at);
      if (reservation && key.alerts && key.alerts.budgetAlertThresholds.length > 0) keys.set(reservation, key);
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
