import { CacheCoherence } from "./cache-coherence";
import type { Store, StoredTeam } from "./types";

/**
 * Teams by id, in front of the store, for the look-up every model request of a key in a team
 * makes. Coherent as the key cache is (key-cache.ts): a change through this process's routes
 * {@link forget}s the team inside its unit of work, before it commits; a change through another
 * process sharing the database is heard on the store's change feed (the teams' trigger notifies on
 * the keys' channel); while the feed is interrupted nothing is cached; and a read a change
 * overtook is never cached.
 */
export class TeamCache {
  readonly #store: Store;
  readonly #capacity: number;
  readonly #byId = new Map<string, StoredTeam>();
  readonly #coherence: CacheCoherence;

  constructor(store: Store, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
    this.#coherence = new CacheCoherence(store.keyChanges, { forget: (id) => this.forget(id), clear: () => this.#byId.clear() });
  }

  /** The owner's team `teamId`, or undefined when it is gone (or another owner's). */
  async find(ownerId: string, teamId: string): Promise<StoredTeam | undefined> {
    const cached = this.#byId.get(teamId);
    if (cached) return cached.ownerId === ownerId ? cached : undefined;
    const started = this.#coherence.readStarted();
    const team = await this.#store.teams.getTeam(ownerId, teamId);
    if (team && this.#coherence.mayCache(started)) {
      if (this.#byId.size >= this.#capacity) this.#byId.delete(this.#byId.keys().next().value!);
      this.#byId.set(teamId, team);
    }
    return team;
  }

  /** The team as cached now, without a read: undefined when it is not cached. */
  cached(teamId: string): StoredTeam | undefined {
    return this.#byId.get(teamId);
  }

  /** Drops a team that is about to change or go. */
  forget(teamId: string): void {
    this.#coherence.changed();
    this.#byId.delete(teamId);
  }

  /** Stops hearing of changes made elsewhere. */
  close(): void {
    this.#coherence.close();
  }
}
