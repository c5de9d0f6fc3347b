/**
 * The SQLite store has one connection, and a transaction on it is visible to every statement run
 * on it until it commits. The gate keeps the connection's users apart: units of work run one at a
 * time, and while one is open, reads and metering commits wait for it to end instead of seeing
 * (or committing) its uncommitted writes. When no unit of work is open, reads run at once.
 */
export class ConnectionGate {
  #tail: Promise<unknown> = Promise.resolve();
  #open = false;

  /** Whether a unit of work holds the connection right now. */
  get open(): boolean {
    return this.#open;
  }

  /** Runs `task` alone on the connection, after every task queued before it. */
  exclusive<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(async () => {
      this.#open = true;
      try {
        return await task();
      } finally {
        this.#open = false;
      }
    });
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Runs `read` now when the connection is free, else once the open unit of work has ended. */
  read<T>(read: () => T): Promise<T> {
    if (!this.#open) {
      try {
        return Promise.resolve(read());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.exclusive(read);
  }

  /** Resolves once every queued task has run. */
  async drained(): Promise<void> {
    await this.#tail;
  }
}
