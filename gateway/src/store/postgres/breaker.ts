import { DatabaseUnavailableError, databaseFaultReason } from "../faults";

/**
 * SQLSTATEs and messages that mean one statement was slow, not that the database is gone: they
 * fail their own request and trip nothing.
 */
const SLOW_STATEMENT_CODES = new Set(["57014", "55P03"]);

/** Timing of {@link DatabaseBreaker}. */
export interface BreakerTiming {
  /** How often the database is probed while the breaker is open. Default 100 ms. */
  probeMs?: number;
}

/**
 * Fails fast while the database is known to be away. Without it, every request during an outage
 * would wait out the connect and statement timeouts on its own, and queue behind the ones before
 * it; with it, the first requests that meet the outage take up to those timeouts, and the rest
 * are answered 503 at once. While open, a probe (`probe`, one trivial query) runs every `probeMs`;
 * its first success closes the breaker, so service resumes within a probe interval of the
 * database's return.
 */
export class DatabaseBreaker {
  readonly #probe: () => Promise<void>;
  readonly #probeMs: number;
  #openedBy: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(probe: () => Promise<void>, timing: BreakerTiming = {}) {
    this.#probe = probe;
    this.#probeMs = timing.probeMs ?? 100;
  }

  /** Why the breaker is open (the fault that opened it), or `undefined` while the database serves. */
  get openedBy(): string | undefined {
    return this.#openedBy;
  }

  /** Runs `work` unless the breaker is open; a database fault it meets opens it. */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    if (this.#openedBy !== undefined) throw new DatabaseUnavailableError(this.#openedBy);
    try {
      return await work();
    } catch (error) {
      this.#observe(error);
      throw error;
    }
  }

  /** Opens the breaker when `error` says the database is away (not merely slow for one statement). */
  #observe(error: unknown): void {
    const reason = databaseFaultReason(error);
    if (reason === undefined || this.#openedBy !== undefined || this.#closed) return;
    if (SLOW_STATEMENT_CODES.has((error as { code?: string }).code ?? "") || error instanceof DatabaseUnavailableError) return;
    this.#openedBy = reason;
    this.#scheduleProbe();
  }

  /** Stops probing for good (the store is closing). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #scheduleProbe(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#probe().then(
        () => {
          this.#openedBy = undefined;
        },
        () => this.#scheduleProbe(),
      );
    }, this.#probeMs);
    this.#timer.unref();
  }
}
