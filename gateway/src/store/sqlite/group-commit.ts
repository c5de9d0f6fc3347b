/** How long a queued write may wait for others to join its commit, and how many may join. */
export interface GroupCommitLimits {
  /** The longest a write waits for company before its batch commits. */
  maxWaitMs: number;
  /** A batch this large commits at once. */
  maxBatch: number;
}

/**
 * Waiting at most 1 ms: a commit of one model request's rows costs several times what each costs
 * in a batch of 8 or more (every commit writes each table's and index's last page again), and
 * a request under that load already takes milliseconds end to end.
 */
export const DEFAULT_GROUP_COMMIT: GroupCommitLimits = { maxWaitMs: 1, maxBatch: 64 };

/**
 * Group commit: writes are committed together in one transaction (one WAL append), and each
 * caller's promise resolves only once its write is committed, so nothing is acknowledged before it
 * is stored. A batch commits after an event-loop turn in which no write joined it — a lone
 * request waits two turns, the one it arrived in and one in which nothing joined it — or once
 * its first write has waited `maxWaitMs`, or once it holds `maxBatch` writes. Under concurrency
 * writes keep arriving turn after turn, and N commits become one.
 */
export class GroupCommitter<Tally = void> {
  readonly #commit: (writes: readonly ((tally: Tally) => void)[]) => void;
  readonly #whenFree: (flush: () => void) => void;
  readonly #limits: GroupCommitLimits;
  #queue: { write: (tally: Tally) => void; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #scheduled: ReturnType<typeof setImmediate> | undefined;
  /** When the batch's first write was queued (performance.now()). */
  #firstQueuedAt = 0;
  /** The batch's size when the last turn ended: a turn that adds nothing ends the wait. */
  #sizeLastTurn = 0;

  /**
   * `commit` runs every write of a batch inside one transaction, or throws to roll all back; it
   * hands each write the batch's `Tally`, where writes add up what the batch then writes once.
   * `whenFree` runs a flush once the connection may commit (default: at once).
   */
  constructor(
    commit: (writes: readonly ((tally: Tally) => void)[]) => void,
    whenFree: (flush: () => void) => void = (flush) => flush(),
    limits: GroupCommitLimits = DEFAULT_GROUP_COMMIT,
  ) {
    this.#commit = commit;
    this.#whenFree = whenFree;
    this.#limits = limits;
  }

  /** Queues `write`; resolves once it is committed. */
  submit(write: (tally: Tally) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) this.#firstQueuedAt = performance.now();
      this.#queue.push({ write, resolve, reject });
      if (this.#queue.length >= this.#limits.maxBatch) this.#flushWhenFree();
      else this.#scheduled ??= setImmediate(() => this.#turnEnded());
    });
  }

  /** Commits everything queued now (also used before closing the database). */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const batch = this.#queue;
    this.#queue = [];
    this.#sizeLastTurn = 0;
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

  /** An event-loop turn passed with the batch open: commit it, unless writes are still joining and it may wait longer. */
  #turnEnded(): void {
    this.#scheduled = undefined;
    const size = this.#queue.length;
    if (size === 0) return;
    const joined = size > this.#sizeLastTurn;
    this.#sizeLastTurn = size;
    if (joined && performance.now() - this.#firstQueuedAt < this.#limits.maxWaitMs) {
      this.#scheduled = setImmediate(() => this.#turnEnded());
      return;
    }
    this.#flushWhenFree();
  }

  #flushWhenFree(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#whenFree(() => this.flush());
  }
}
