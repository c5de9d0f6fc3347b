import type { KeyChangeFeed } from "./types";

/**
 * What keeps a cache in front of the store coherent (the key cache, the team cache). A change made
 * through this process is {@link changed} inside its unit of work, before it commits; a change made
 * by another process sharing the database is heard on the store's {@link KeyChangeFeed} and
 * passed to `forget`; while the feed is interrupted (changes could go unheard) nothing may be cached
 * and the cache is emptied. A read that any of this overtook may predate it, so it is never cached:
 * take {@link readStarted} before a read and ask {@link mayCache} after it.
 */
export class CacheCoherence {
  /** Counts changes and the feed's interruptions and resumptions. */
  #changes = 0;
  /** The feed is interrupted: cache nothing. */
  #bypass = false;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(feed: KeyChangeFeed | undefined, cache: { forget(id: string): void; clear(): void }) {
    this.#unsubscribe = feed?.subscribe({
      changed: (id) => cache.forget(id),
      interrupted: () => {
        this.#changes++;
        this.#bypass = true;
        cache.clear();
      },
      resumed: () => {
        this.#changes++;
        this.#bypass = false;
      },
    });
  }

  /** Marks the start of a store read: hand the answer to {@link mayCache}. */
  readStarted(): number {
    return this.#changes;
  }

  /** Whether what a read begun at `started` returned may be cached: no change overtook it and the feed is up. */
  mayCache(started: number): boolean {
    return !this.#bypass && this.#changes === started;
  }

  /** Something cached is about to change or go. */
  changed(): void {
    this.#changes++;
  }

  /** Stops hearing of changes made elsewhere. */
  close(): void {
    this.#unsubscribe?.();
  }
}
