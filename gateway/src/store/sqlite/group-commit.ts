/**
 * Group commit: writes queued during one turn of the event loop are committed together in one
 * transaction (one WAL append) on `setImmediate`, and each caller's promise resolves only once
 * its write is committed, so nothing is acknowledged before it is stored. Under concurrency this
 * turns N commits into one; a lone request waits one event-loop hop.
 */
export class GroupCommitter<Tally = void> {
  readonly #commit: (writes: readonly ((tally: Tally) => void)[]) => void;
  readonly #whenFree: (flush: () => void) => void;
  #queue: { write: (tally: Tally) => void; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #scheduled: ReturnType<typeof setImmediate> | undefined;

  /**
   * `commit` runs every write of a batch inside one transaction, or throws to roll all back; it
   * hands each write the batch's `Tally`, where writes add up what the batch then writes once.
   * `whenFree` runs a flush once the connection may commit (default: at once).
   */
  constructor(commit: (writes: readonly ((tally: Tally) => void)[]) => void, whenFree: (flush: () => void) => void = (flush) => flush()) {
    this.#commit = commit;
    this.#whenFree = whenFree;
  }

  /** Queues `write`; resolves once it is committed. */
  submit(write: (tally: Tally) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ write, resolve, reject });
      this.#scheduled ??= setImmediate(() => {
        this.#scheduled = undefined;
        this.#whenFree(() => this.flush());
      });
    });
  }

  /** Commits everything queued now (also used before closing the database). */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    try {
      this.#commit(batch.map((item) => item.write));
      for (const item of batch) item.resolve();
    } catch {
      // One failing write must not fail its neighbours: commit each alone to find out whose it is.
      for (const item of batch) {
        try {
          this.#commit([item.write]);
          item.resolve();
        } catch (error) {
          item.reject(error);
        }
      }
    }
  }
}
