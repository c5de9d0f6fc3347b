import type { ResetPeriod } from "@gateway-keys/contract";
import { thresholdMicros } from "./alerts";

/** One spend window of a key or a team at a charge's time: its period, limit and start, and the thresholds its alerts are sent at. */
export interface WatchedWindow {
  readonly resetPeriod: ResetPeriod;
  readonly limitMicros: bigint;
  readonly start: number;
  readonly thresholds: readonly number[];
}

/** What a check read of a window and sent: its spend, and how many thresholds (from the lowest) it reached. */
export interface ThresholdCheck {
  spent: bigint;
  crossed: number;
}

/**
 * Reads `window`'s spend of `subject` from the database and sends each threshold it reached past
 * the `alreadySent` lowest, each once (its alert mark decides, across processes).
 */
export type CheckThresholds<Subject> = (subject: Subject, window: WatchedWindow, alreadySent: number) => Promise<ThresholdCheck>;

/** What this process knows of one window's thresholds. */
interface Watch<Subject> {
  subject: Subject;
  window: WatchedWindow;
  /** The window's spend as last read from the database, plus this process's charges since. */
  estimateMicros: bigint;
  /** How many of the thresholds (in order) are known to be sent. */
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
 * Budget thresholds watched off the hot path, for keys' windows and teams' alike: a settled charge
 * adds its cost to this process's estimate of its window's spend, and only when that estimate
 * reaches the next threshold — or is older than `refreshMs`, since other processes spend too — is
 * the window read from the database and each threshold it reached sent once. The database's alert
 * marks decide "once", not this memory, so a restart or another process never repeats one. A
 * charge that does not lead to a read at once is followed by one within `refreshMs`, so the last
 * charge of a burst — this process's or, through the database, another's — is never left unchecked.
 */
export class ThresholdWatches<Subject> {
  readonly #check: CheckThresholds<Subject>;
  readonly #refreshMs: number;
  readonly #watches = new Map<string, Watch<Subject>>();
  #closed = false;

  constructor(check: CheckThresholds<Subject>, refreshMs: number) {
    this.#check = check;
    this.#refreshMs = refreshMs;
  }

  /**
   * A charge of `micros` in `window` of `subject`, watched under `watchId` (one per subject and
   * window period). A new window start, limit or list of thresholds starts the watch again.
   */
  charged(watchId: string, subject: Subject, window: WatchedWindow, micros: bigint): void {
    if (this.#closed || window.thresholds.length === 0) return;
    let watch = this.#watches.get(watchId);
    if (!watch || watch.window.start !== window.start || watch.window.limitMicros !== window.limitMicros || watch.window.thresholds !== window.thresholds) {
      if (watch) clearTimeout(watch.timer);
      watch = { subject, window, estimateMicros: 0n, sent: 0, readAt: Number.NEGATIVE_INFINITY, checking: false, dirty: false, timer: undefined };
      this.#watches.set(watchId, watch);
    }
    watch.subject = subject;
    watch.estimateMicros += micros;
    this.#decide(watch);
  }

  /** Stops the trailing checks (the app is closing). */
  close(): void {
    this.#closed = true;
    for (const watch of this.#watches.values()) clearTimeout(watch.timer);
  }

  /** Reads now when the next threshold may be reached or the estimate is stale; otherwise makes sure a read follows soon. */
  #decide(watch: Watch<Subject>): void {
    const next = watch.window.thresholds[watch.sent];
    if (next === undefined || this.#closed) return;
    if (watch.checking) {
      watch.dirty = true;
      return;
    }
    const age = performance.now() - watch.readAt;
    if (watch.estimateMicros >= thresholdMicros(watch.window.limitMicros, next) || age >= this.#refreshMs) {
      clearTimeout(watch.timer);
      watch.timer = undefined;
      void this.#read(watch);
    } else if (watch.timer === undefined) {
      watch.timer = setTimeout(() => {
        watch.timer = undefined;
        this.#decide(watch);
      }, this.#refreshMs - age);
      watch.timer.unref();
    }
  }

  async #read(watch: Watch<Subject>): Promise<void> {
    watch.checking = true;
    watch.dirty = false;
    const before = watch.estimateMicros;
    let failed = false;
    try {
      const { spent, crossed } = await this.#check(watch.subject, watch.window, watch.sent);
      // Charges that came during the read may or may not be in `spent`: counted again (an
      // overestimate only brings the next read sooner).
      watch.estimateMicros = spent + (watch.estimateMicros - before);
      watch.sent = Math.max(watch.sent, crossed);
    } catch {
      // Not sent: tried again after `refreshMs` (or at the next charge), and the marks keep it once-only.
      failed = true;
    } finally {
      watch.readAt = performance.now();
      watch.checking = false;
    }
    if (failed) this.#retryLater(watch);
    else if (watch.dirty) this.#decide(watch);
  }

  /** A failed read is tried again after `refreshMs`, not at once: a database that is down is not asked in a loop. */
  #retryLater(watch: Watch<Subject>): void {
    if (this.#closed || watch.timer !== undefined) return;
    watch.timer = setTimeout(() => {
      watch.timer = undefined;
      this.#decide(watch);
    }, this.#refreshMs);
    watch.timer.unref();
  }
}
