import type { NewLogEntry, RequestOutcome, SharedHolds, SharedSpend, SpendRecords, MeteredKey } from "./interfaces";
import type { Ledger, SpendReservation } from "./ledger";
import { refusalAt, reservesThroughHolds, subjectsOf, type SpendRefusal } from "./spend-windows";

/**
 * Spend reservations held in a database that many gateway processes share (PostgreSQL), so that
 * together they never let a key, or a team, pass a limit: each reservation is one atomic
 * check-and-insert there, serialised per key (per key and team), and a settle commits the charge
 * and drops the reservation at once. The window a limit applies to is computed there too, from
 * the key's period and the request's time. A reservation has a lease its process renews, so a
 * killed process's reservations lapse.
 *
 * A key of one window and no team reserves on its spend account ({@link SharedSpend}); a key of
 * several windows, or in a team with a spend policy, holds from every window of the key and the
 * team in one step ({@link SharedHolds}).
 *
 * Round trips per model request alone: a key with a limit makes two (reserve, settle); a key
 * without a limit makes one (settle's record), because nothing can stop it spending and so nothing
 * is reserved. Requests in flight together share them: reservations and settles go in batches
 * (shared/batcher.ts), most reservations of a busy key draw on a holding (shared/holdings.ts).
 */
export class SharedLedger implements Ledger {
  readonly #store: SpendRecords;
  readonly #shared: SharedSpend;
  readonly #holds: SharedHolds | undefined;

  constructor(store: SpendRecords, shared: SharedSpend, holds?: SharedHolds) {
    this.#store = store;
    this.#shared = shared;
    this.#holds = holds;
  }

  async reserve(key: MeteredKey, micros: bigint, at: number): Promise<SpendReservation | undefined> {
    if (this.#holds && reservesThroughHolds(key)) {
      const held = await this.#holds.reserveHolds(subjectsOf(key, at), micros);
      return "holds" in held ? { keyId: key.id, micros, holds: held.holds } : undefined;
    }
    if (key.spendLimitMicros === null) return { keyId: key.id, micros };
    const held = await this.#shared.reserve(key.id, micros, at);
    return held === undefined ? undefined : { keyId: key.id, micros, held };
  }

  async headroom(key: MeteredKey, at: number): Promise<bigint | null> {
    if (this.#holds && reservesThroughHolds(key)) {
      const left = await this.#holds.holdHeadroom(subjectsOf(key, at));
      return left.reduce((tightest, each) => (each < tightest ? each : tightest));
    }
    return key.spendLimitMicros === null ? null : this.#shared.headroom(key.id, at);
  }

  async refusal(key: MeteredKey, micros: bigint, at: number): Promise<SpendRefusal | undefined> {
    const subjects = subjectsOf(key, at);
    if (this.#holds && reservesThroughHolds(key)) {
      const index = (await this.#holds.holdHeadroom(subjects)).findIndex((left) => left < micros);
      return index === -1 ? undefined : refusalAt(subjects, index);
    }
    const left = key.spendLimitMicros === null ? null : await this.#shared.headroom(key.id, at);
    return left !== null && left < micros ? refusalAt(subjects, 0) : undefined;
  }

  settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    if (reservation.holds !== undefined && this.#holds) return this.#holds.settleHolds(reservation.holds, entry, outcome);
    return reservation.held === undefined
      ? this.#store.recordRequest(entry, outcome)
      : this.#shared.settle(reservation.held, entry, outcome);
  }

  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }
}
