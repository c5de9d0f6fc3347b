import { CacheCoherence } from "./cache-coherence";
import type { KeyChangeFeed, Store, StoredApiKey } from "./types";

/**
 * Regular keys by secret hash, in front of the store, for the look-up every model request makes
 * (a SELECT of a key costs about 10 µs in node:sqlite, a round trip to PostgreSQL far more; a hit
 * here well under 1). Coherent within a process because every change of a key made through this
 * process's account routes {@link forget}s the key inside their unit of work, before it commits:
 * a look-up in between misses and reads the store, which answers only once the change has
 * committed. Across processes sharing a database, the store's {@link KeyChangeFeed} tells of
 * every committed change, and the key is forgotten when it is heard; while the feed is
 * interrupted (changes could go unheard) nothing is cached and every look-up reads the store.
 * A read that any of this overtook is never cached (cache-coherence.ts). Records here are used for their
 * state, secrets and policies; spend is the {@link SpendLedger}'s. A key is cached under the hash
 * it was found by (its current secret, or the previous one during a rotation's grace period); the
 * grace period's end is checked against the clock on every request, so time alone never makes an
 * entry stale. A previous secret retired early (extension `secret_use`) is a change of the key's
 * row like any other: forgotten here by the scan that retires it, and heard through the feed.
 */
export class KeyCache {
  readonly #store: Store;
  readonly #capacity: number;
  readonly #byHash = new Map<string, StoredApiKey>();
  /** The hashes each cached key is filed under: at most its current and its previous secret's. */
  readonly #hashesById = new Map<string, Set<string>>();
  readonly #coherence: CacheCoherence;

  constructor(store: Store, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
    this.#coherence = new CacheCoherence(store.keyChanges, {
      forget: (keyId) => this.forget(keyId),
      clear: () => {
        this.#byHash.clear();
        this.#hashesById.clear();
      },
    });
  }

  /** The key whose current or previous secret hashes to `secretHash`, in any state. */
  async find(secretHash: Buffer): Promise<StoredApiKey | undefined> {
    const hash = secretHash.toString("base64");
    const cached = this.#byHash.get(hash);
    if (cached) return cached;
    const started = this.#coherence.readStarted();
    const key = await this.#store.findApiKeyByHash(secretHash);
    if (key && this.#coherence.mayCache(started)) this.#remember(hash, key);
    return key;
  }

  /** Stops hearing of changes made elsewhere. */
  close(): void {
    this.#coherence.close();
  }

  /** Drops a key that is about to change, under every hash it is filed under. */
  forget(keyId: string): void {
    this.#coherence.changed();
    this.#drop(keyId);
  }

  #drop(keyId: string): void {
    const hashes = this.#hashesById.get(keyId);
    if (hashes === undefined) return;
    this.#hashesById.delete(keyId);
    for (const hash of hashes) this.#byHash.delete(hash);
  }

  #remember(hash: string, key: StoredApiKey): void {
    // A Map iterates in insertion order: the first entry is the oldest.
    if (this.#byHash.size >= this.#capacity) this.#drop(this.#byHash.values().next().value!.id);
    const hashes = this.#hashesById.get(key.id) ?? new Set<string>();
    // Another hash of the same key may hold an older read of it: keep one record per key.
    for (const other of hashes) this.#byHash.set(other, key);
    hashes.add(hash);
    this.#byHash.set(hash, key);
    this.#hashesById.set(key.id, hashes);
  }
}
