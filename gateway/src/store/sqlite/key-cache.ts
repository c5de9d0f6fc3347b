import type { StoredApiKey } from "../types";

/**
 * Keys by id, and ids by secret hash, for the look-up every model request makes (a SELECT of a
 * key costs about 10 µs in node:sqlite; a hit here well under 1). Coherent only because the store
 * that owns it is the one writer of api_keys (one server process per database): every update
 * forgets the key, every committed charge is applied to it.
 */
export class KeyCache {
  readonly #capacity: number;
  readonly #byId = new Map<string, StoredApiKey>();
  readonly #idByHash = new Map<string, string>();

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  byHash(secretHash: Buffer): StoredApiKey | undefined {
    const id = this.#idByHash.get(secretHash.toString("base64"));
    return id === undefined ? undefined : this.#byId.get(id);
  }

  byId(keyId: string): StoredApiKey | undefined {
    return this.#byId.get(keyId);
  }

  /** Caches `key` (dropping the oldest entry when full) and returns it. */
  remember(key: StoredApiKey): StoredApiKey {
    if (this.#byId.size >= this.#capacity) this.forget(this.#byId.keys().next().value!);
    this.#byId.set(key.id, key);
    this.#idByHash.set(key.secretHash.toString("base64"), key.id);
    return key;
  }

  forget(keyId: string): void {
    const key = this.#byId.get(keyId);
    if (!key) return;
    this.#byId.delete(keyId);
    this.#idByHash.delete(key.secretHash.toString("base64"));
  }

  /** Applies a committed charge to the cached key, if it is cached. */
  charge(keyId: string, micros: bigint): void {
    const key = this.#byId.get(keyId);
    if (key) key.spentMicros += micros;
  }
}
