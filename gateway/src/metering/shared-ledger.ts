import type { NewLogEntry, RequestOutcome, SharedSpend, SpendRecords, MeteredKey } from "./interfaces";
import type { Ledger, SpendReservation } from "./ledger";

/**
 * Spend reservations held in a database that many gateway processes share (PostgreSQL), so that
 * together they never let a key pass its limit: each reservation is one atomic check-and-insert
 * there, serialised per key, and a settle commits the charge and drops the reservation at once.
 * The window a limit applies to is computed there too, from the key's period and the request's
 * time. A reservation has a lease its process renews, so a killed process's reservations lapse.
 *
 * Round trips per model request alone: a key with a limit makes two (reserve, settle); a key
 * without a limit makes one (settle's record), because nothing can stop it spending and so nothing
 * is reserved. Requests in flight together share them: reservations and settles go in batches
 * (shared/batcher.ts), most reservations of a busy key draw on a holding (shared/holdings.ts).
 */
export class SharedLedger implements Ledger {
  readonly #store: SpendRecords;
  readonly #shared: SharedSpend;

  constructor(store: SpendRecords, shared: SharedSpend) {
    this.#store = store;
    this.#shared = shared;
  }

  async reserve(key: MeteredKey, micros: bigint, at: number): Promise<SpendReservation | undefined> {
    if (key.spendLimitMicros === null) return { keyId: key.id, micros };
    const held = await this.#shared.reserve(key.id, micros, at);
    return held === undefined ? undefined : { keyId: key.id, micros, held };
  }

  headroom(key: MeteredKey, at: number): Promise<bigint | null> {
    return key.spendLimitMicros === null ? Promise.resolve(null) : this.#shared.headroom(key.id, at);
  }

  settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    return reservation.held === undefined
      ? this.#store.recordRequest(entry, outcome)
      : this.#shared.settle(reservation.held, entry, outcome);
  }

  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }
}
