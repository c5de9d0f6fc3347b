import { windowStartOf } from "@gateway-keys/contract";
import type { Ledger } from "../metering/ledger";
import type { MeteredKey } from "../metering/interfaces";
import { keyWindowsOf } from "../metering/spend-windows";
import type { Store } from "../store/types";
import { budgetThresholdAlert, sendAlertOnce, thresholdMicros, type AlertSubject } from "./alerts";

/** A key as the alerts need it: what metering knows, and who it is for the event's `data`. */
export type AlertedKey = MeteredKey & AlertSubject;

/** Whether a key metering reserved for carries what an alert names (a stored key does). */
function isAlertedKey(key: MeteredKey): key is AlertedKey {
  const subject = key as Partial<AlertSubject>;
  return typeof subject.ownerId === "string" && typeof subject.name === "string" && typeof subject.labels === "object" && typeof subject.createdAt === "number";
}

/** What this process knows of one key's current window. */
interface WindowWatch {
  key: AlertedKey;
  windowStart: number;
  thresholds: readonly number[];
  /** The window's spend as last read from the database, plus this process's charges since. */
  estimateMicros: bigint;
  /** How many of `thresholds` (in order) are known to be sent. */
  sent: number;
  /** When the database was last read (monotonic ms: a freshness heuristic, not business time). */
  readAt: number;
  checking: boolean;
  /** A charge came while a check ran: decide again when it ends. */
  dirty: boolean;
  /** The trailing check that follows a burst's last charge. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Watches charges for crossed budget thresholds, off the hot path: a settle adds its cost to this
 * process's estimate of the key's window spend, and only when that estimate reaches the next
 * threshold — or the estimate is older than `refreshMs`, since other processes spend too — is the
 * window's spend read from the database and each crossed threshold sent once (the database's
 * alert marks decide "once", not this memory, so a restart or another process never repeats one).
 * A charge that does not lead to a read at once is followed by one within `refreshMs`, so the last
 * charge of a burst — this process's or, through the database, another's — is never left unchecked.
 * The periodic scan (alert-scan.ts) checks every key with thresholds too, as a backstop.
 */
export class BudgetAlerts {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #refreshMs: number;
  readonly #watches = new Map<string, WindowWatch>();
  #closed = false;
  /** Called once an alert is committed (the deliverer's nudge). */
  onSent: () => void = () => undefined;

  constructor(store: Store, now: () => number, refreshMs = 1000) {
    this.#store = store;
    this.#now = now;
    this.#refreshMs = refreshMs;
  }

  /** A settled charge of `micros` on `key` for a request that began at `at`: watched in each window of its spend policy. */
  charged(key: AlertedKey, micros: bigint, at: number): void {
    const windows = keyWindowsOf({ spendLimitMicros: key.spendLimitMicros, resetPeriod: key.resetPeriod, spendWindows: key.spendWindows ?? null });
    if (windows.length <= 1) return this.#chargedIn(key, key.id, micros, at);
    for (const window of windows) {
      this.#chargedIn({ ...key, spendLimitMicros: window.limitMicros, resetPeriod: window.resetPeriod }, `${key.id}\0${window.resetPeriod}`, micros, at);
    }
  }

  /** A charge in the one window `key`'s limit and period name, watched under `watchId`. */
  #chargedIn(key: AlertedKey, watchId: string, micros: bigint, at: number): void {
    const thresholds = key.alerts?.budgetAlertThresholds;
    if (this.#closed || !thresholds || thresholds.length === 0 || key.spendLimitMicros === null) return;
    const windowStart = windowStartOf(key.resetPeriod, at);
    let watch = this.#watches.get(watchId);
    if (!watch || watch.windowStart !== windowStart || watch.thresholds !== thresholds) {
      if (watch) clearTimeout(watch.timer);
      watch = { key, windowStart, thresholds, estimateMicros: 0n, sent: 0, readAt: Number.NEGATIVE_INFINITY, checking: false, dirty: false, timer: undefined };
      this.#watches.set(watchId, watch);
    }
    watch.key = key;
    watch.estimateMicros += micros;
    this.#decide(watch);
  }

  /** Stops the trailing checks (the app is closing). */
  close(): void {
    this.#closed = true;
    for (const watch of this.#watches.values()) clearTimeout(watch.timer);
  }

  /** Reads now when the next threshold may be reached or the estimate is stale; otherwise makes sure a read follows soon. */
  #decide(watch: WindowWatch): void {
    const limitMicros = watch.key.spendLimitMicros;
    const next = watch.thresholds[watch.sent];
    if (next === undefined || limitMicros === null || this.#closed) return;
    if (watch.checking) {
      watch.dirty = true;
      return;
    }
    const age = performance.now() - watch.readAt;
    if (watch.estimateMicros >= thresholdMicros(limitMicros, next) || age >= this.#refreshMs) {
      clearTimeout(watch.timer);
      watch.timer = undefined;
      void this.#check(watch, limitMicros);
    } else if (watch.timer === undefined) {
      watch.timer = setTimeout(() => {
        watch.timer = undefined;
        this.#decide(watch);
      }, this.#refreshMs - age);
      watch.timer.unref();
    }
  }

  async #check(watch: WindowWatch, limitMicros: bigint): Promise<void> {
    watch.checking = true;
    watch.dirty = false;
    const before = watch.estimateMicros;
    try {
      const { spent, crossed } = await sendCrossedThresholds(this.#store, watch.key, limitMicros, watch.windowStart, watch.thresholds, this.#now, this.onSent, watch.sent);
      // Charges that came during the read may or may not be in `spent`: counted again (an
      // overestimate only brings the next read sooner).
      watch.estimateMicros = spent + (watch.estimateMicros - before);
      watch.readAt = performance.now();
      watch.sent = Math.max(watch.sent, crossed);
    } catch {
      // Not sent: the trailing check (or the scan) tries again, and the marks keep it once-only.
      watch.readAt = performance.now();
      watch.dirty = true;
    } finally {
      watch.checking = false;
    }
    if (watch.dirty) this.#decide(watch);
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
