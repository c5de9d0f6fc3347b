import type { NewLogEntry, RequestOutcome, Store, StoredApiKey } from "../store/types";
import { SharedSpendLedger } from "./shared-spend-ledger";

/** Spend held for one request in flight, to be settled once its cost is known. */
export interface SpendReservation {
  readonly keyId: string;
  readonly micros: bigint;
  /** The reservation's row in a shared database ({@link SharedSpendLedger}); none in memory or for a key without a limit. */
  readonly heldAs?: string;
}

/**
 * The spend policy as model calls use it: reserve the most a request can cost before it runs,
 * settle its actual cost once known. {@link spendLedgerFor} picks the implementation its store
 * needs.
 */
export interface Ledger {
  /** Reserves `micros` of the key's limit; `undefined` when that would pass the limit. Keys without a limit always fit. */
  reserve(key: StoredApiKey, micros: bigint): Promise<SpendReservation | undefined>;
  /**
   * Records the request with its actual cost (`entry.costMicros`, at most the reservation) and
   * releases the reservation. Resolves once the charge is committed: answer only then.
   */
  settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void>;
  /** Records a request refused or failed before anything was reserved: it costs nothing. */
  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void>;
}

/**
 * The ledger a store needs: reservations in the database when many processes share it
 * ({@link Store.sharedSpend}), else in this process's memory.
 */
export function spendLedgerFor(store: Store): Ledger {
  return store.sharedSpend ? new SharedSpendLedger(store, store.sharedSpend) : new SpendLedger(store);
}

interface Account {
  /** Committed charges. */
  spent: bigint;
  /** Reservations of requests in flight. */
  reserved: bigint;
}

/**
 * The spend policy: no key ever spends past its `spendPolicy.limitUnits`, however many of its
 * requests run at once. A request first reserves the most it can cost; the check (committed
 * spend + reservations in flight + this one ≤ limit) and the reservation are one synchronous
 * step, so no two requests can both pass it. Settling records the request with its actual cost
 * (committed in the store), then releases the reservation.
 *
 * Reservations live in this process: they belong to requests in flight here and die with it (a
 * crash cannot leak one). That is exact while one process serves a database, as with SQLite
 * (many processes sharing PostgreSQL use {@link SharedSpendLedger}). A key's committed spend is read from the store the first time the ledger meets
 * the key, and from then on followed charge by charge.
 */
export class SpendLedger implements Ledger {
  readonly #store: Store;
  readonly #capacity: number;
  readonly #accounts = new Map<string, Account>();
  readonly #loading = new Map<string, Promise<Account>>();

  constructor(store: Store, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
  }

  /** Reserves `micros` of the key's limit; `undefined` when that would pass the limit. Keys without a limit always fit. */
  async reserve(key: StoredApiKey, micros: bigint): Promise<SpendReservation | undefined> {
    const account = this.#accounts.get(key.id) ?? (await this.#load(key.id));
    // From here to the end: synchronous, so the check and the reservation are one step.
    if (key.spendLimitMicros !== null && account.spent + account.reserved + micros > key.spendLimitMicros) return undefined;
    account.reserved += micros;
    return { keyId: key.id, micros };
  }

  /**
   * Records the request with its actual cost (`entry.costMicros`, at most the reservation) and
   * releases the reservation. Resolves once the charge is committed: answer only then.
   */
  async settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    const account = this.#accounts.get(reservation.keyId);
    try {
      await this.#store.recordRequest(entry, outcome);
      if (account) account.spent += entry.costMicros;
    } finally {
      // Released only now: until the charge is counted in `spent`, the reservation covers it.
      if (account) account.reserved -= reservation.micros;
    }
  }

  /** Records a request refused or failed before anything was reserved: it costs nothing. */
  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }

  /**
   * Reads a key's committed spend once. No charge of the key can be in flight meanwhile: charges
   * come only from reservations, which need the account this creates.
   */
  #load(keyId: string): Promise<Account> {
    let loading = this.#loading.get(keyId);
    if (!loading) {
      loading = this.#store.spentMicros(keyId).then(
        (spent) => {
          this.#loading.delete(keyId);
          this.#evictIdle();
          const account = { spent, reserved: 0n };
          this.#accounts.set(keyId, account);
          return account;
        },
        (error: unknown) => {
          this.#loading.delete(keyId);
          throw error;
        },
      );
      this.#loading.set(keyId, loading);
    }
    return loading;
  }

  /** Keeps memory bounded: forgets the oldest accounts with nothing in flight (they reload exactly). */
  #evictIdle(): void {
    if (this.#accounts.size < this.#capacity) return;
    for (const [keyId, account] of this.#accounts) {
      if (account.reserved === 0n) this.#accounts.delete(keyId);
      if (this.#accounts.size < this.#capacity / 2) return;
    }
  }
}
