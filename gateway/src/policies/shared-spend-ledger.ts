import type { NewLogEntry, RequestOutcome, SharedSpend, Store, StoredApiKey } from "../store/types";
import type { Ledger, SpendReservation } from "./spend-ledger";

/**
 * Spend reservations held in a database that many gateway processes share (PostgreSQL), so that
 * together they never let a key pass its limit: each reservation is one atomic check-and-insert
 * there, serialised per key, and a settle commits the charge and drops the reservation at once.
 * A reservation has a lease its process renews, so a killed process's reservations lapse.
 *
 * Round trips per model request alone: a key with a limit makes two (reserve, settle); a key
 * without a limit makes one (settle's record), because nothing can stop it spending and so nothing
 * is reserved. Requests in flight together share them: the store sends reservations and settles in
 * batches (store/postgres/spend-batcher.ts). The key itself comes from the key cache, without a
 * round trip when cached.
 */
export class SharedSpendLedger implements Ledger {
  readonly #store: Store;
  readonly #shared: SharedSpend;

  constructor(store: Store, shared: SharedSpend) {
    this.#store = store;
    this.#shared = shared;
  }

  async reserve(key: StoredApiKey, micros: bigint): Promise<SpendReservation | undefined> {
    if (key.spendLimitMicros === null) return { keyId: key.id, micros };
    const heldAs = await this.#shared.reserve(key.id, micros);
    return heldAs === undefined ? undefined : { keyId: key.id, micros, heldAs };
  }

  settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    return reservation.heldAs === undefined
      ? this.#store.recordRequest(entry, outcome)
      : this.#shared.settle(reservation.heldAs, entry, outcome);
  }

  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }
}
