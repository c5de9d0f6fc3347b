import type { NewLogEntry } from "../types";

/**
 * Settles whose fate a database fault hid: their batch was sent, and the connection failed before
 * the answer came, so it may have committed. Their clients were answered 503 (or a stream's error
 * event), so a charge that did commit is a charge for an answer never given: once the database
 * answers again, `undo` records each such request as the 503 it was and takes its cost back
 * (statements.ts, `voidSettles`). Tried again with backoff until it succeeds.
 */
export class InDoubtSettles {
  readonly #undo: (entries: readonly NewLogEntry[]) => Promise<void>;
  #pending: NewLogEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  #delayMs = 100;
  #running: Promise<void> | undefined;

  constructor(undo: (entries: readonly NewLogEntry[]) => Promise<void>) {
    this.#undo = undo;
  }

  /** Settles to undo, if they committed. */
  add(entries: readonly NewLogEntry[]): void {
    this.#pending.push(...entries);
    this.#schedule();
  }

  /** Tries once more now, then stops: what is still pending stays charged (docs/operators/storage.md#when-the-database-fails). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (this.#pending.length > 0) await this.#attempt();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer || this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#attempt().finally(() => {
        this.#running = undefined;
        if (this.#pending.length > 0) this.#schedule();
      });
    }, this.#delayMs);
    this.#timer.unref();
  }

  async #attempt(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    try {
      await this.#undo(batch);
      this.#delayMs = 100;
    } catch {
      this.#pending.unshift(...batch);
      this.#delayMs = Math.min(this.#delayMs * 2, 5000);
    }
  }
}
