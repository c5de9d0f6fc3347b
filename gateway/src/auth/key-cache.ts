import type { Store, StoredApiKey } from "../store/types";

/**
 * Regular keys by secret hash, in front of the store, for the look-up every model request makes
 * (a SELECT of a key costs about 10 µs in node:sqlite; a hit here well under 1). Coherent because
 * every change of a key passes through this process's account routes, which {@link forget} the
 * key inside their unit of work, before it commits: a look-up in between misses and reads the
 * store, which answers only once the change has committed. Records here are used for their
 * state, secret and policies; spend is the {@link SpendLedger}'s.
 */
export class KeyCache {
  readonly #store: Store;
  readonly #capacity: number;
  readonly #byHash = new Map<string, StoredApiKey>();
  readonly #hashById = new Map<string, string>();
  /** Counts {@link forget} calls: a read that a change overtook must not be cached. */
  #changes = 0;

  constructor(store: Store, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
  }

  /** The key whose current secret hashes to `secretHash`, in any state. */
  async find(secretHash: Buffer): Promise<StoredApiKey | undefined> {
    const hash = secretHash.toString("base64");
    const cached = this.#byHash.get(hash);
    if (cached) return cached;
    const changesBefore = this.#changes;
    const key = await this.#store.findApiKeyByHash(secretHash);
    if (key && this.#changes === changesBefore) this.#remember(hash, key);
    return key;
  }

  /** Drops a key that is about to change. */
  forget(keyId: string): void {
    this.#changes++;
    this.#drop(keyId);
  }

  #drop(keyId: string): void {
    const hash = this.#hashById.get(keyId);
    if (hash === undefined) return;
    this.#hashById.delete(keyId);
    this.#byHash.delete(hash);
  }

  #remember(hash: string, key: StoredApiKey): void {
    // A Map iterates in insertion order: the first entry is the oldest.
    if (this.#byHash.size >= this.#capacity) this.#drop(this.#byHash.values().next().value!.id);
    this.#drop(key.id);
    this.#byHash.set(hash, key);
    this.#hashById.set(key.id, hash);
  }
}
