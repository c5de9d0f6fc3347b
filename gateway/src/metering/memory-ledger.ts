import { windowStartOf, type ResetPeriod } from "@gateway-keys/contract";
import type { NewLogEntry, RequestOutcome, SpendRecords, MeteredKey } from "./interfaces";
import type { Ledger, SpendReservation } from "./ledger";

interface Account {
  /** The reset period the window was computed under. */
  period: ResetPeriod;
  /** Start of the window `spent` counts (0 for a lifetime cap). */
  windowStart: number;
  /** Committed charges of requests that began in the window. */
  spent: bigint;
  /** Reservations of requests in flight, whatever window they began in. */
  reserved: bigint;
}

/**
 * The spend policy in this process's memory: no key ever spends past its `spendPolicy.limitUnits`
 * in a window, however many of its requests run at once. A request first reserves the most it can
 * cost; the check (window's committed spend + reservations in flight + this one ≤ limit) and the
 * reservation are one synchronous step, so no two requests can both pass it. Settling records the
 * request with its actual cost (committed in the store), then releases the reservation.
 *
 * Reservations live in this process: they belong to requests in flight here and die with it (a
 * crash cannot leak one). That is exact while one process serves a database, as with SQLite
 * (many processes sharing PostgreSQL use `SharedLedger`). A key's window spend is read from the
 * store the first time the ledger meets the key (or its period changes), and from then on
 * followed charge by charge; when the calendar passes a boundary the next window starts at zero,
 * since every request of the new window reserves through this ledger.
 */
export class MemoryLedger implements Ledger {
  readonly #store: SpendRecords;
  readonly #capacity: number;
  readonly #accounts = new Map<string, Account>();
  readonly #loading = new Map<string, Promise<Account>>();

  constructor(store: SpendRecords, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
  }

  async reserve(key: MeteredKey, micros: bigint, at: number): Promise<SpendReservation | undefined> {
    const account = await this.#account(key, at);
    // From here to the end: synchronous, so the check and the reservation are one step.
    if (key.spendLimitMicros !== null && account.spent + account.reserved + micros > key.spendLimitMicros) return undefined;
    account.reserved += micros;
    return { keyId: key.id, micros };
  }

  async headroom(key: MeteredKey, at: number): Promise<bigint | null> {
    if (key.spendLimitMicros === null) return null;
    const account = await this.#account(key, at);
    return key.spendLimitMicros - account.spent - account.reserved;
  }

  async settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    try {
      await this.#store.recordRequest(entry, outcome);
      const account = this.#accounts.get(reservation.keyId);
      // A request that began before its window's start (it was in flight at the boundary) counts in the window it began in.
      if (account && entry.createdAt >= account.windowStart) account.spent += entry.costMicros;
    } finally {
      // Released only now: until the charge is counted in `spent`, the reservation covers it.
      const account = this.#accounts.get(reservation.keyId);
      if (account) account.reserved -= reservation.micros;
    }
  }

  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }

  /** The key's account for the window that holds `at`. */
  async #account(key: MeteredKey, at: number): Promise<Account> {
    const windowStart = windowStartOf(key.resetPeriod, at);
    const account = this.#accounts.get(key.id) ?? (await this.#load(key, windowStart));
    if (account.period === key.resetPeriod && account.windowStart === windowStart) return account;
    if (account.period === key.resetPeriod && windowStart > account.windowStart) {
      // The calendar passed a boundary: nothing of the new window was charged yet.
      account.windowStart = windowStart;
      account.spent = 0n;
      return account;
    }
    // A request of an earlier window (it began before the boundary, and reserves after a request of
    // the new one did): checked against the current window, which counts every reservation anyway.
    if (account.period === key.resetPeriod) return account;
    // The period changed: the window's spend is read again from the days it covers. A charge committed while this reads may be counted twice, never missed.
    const reloaded = await this.#store.spentSince(key.id, windowStart);
    account.period = key.resetPeriod;
    account.windowStart = windowStart;
    account.spent = reloaded;
    return account;
  }

  /**
   * Reads a key's window spend once. No charge of the key can be in flight meanwhile: charges
   * come only from reservations, which need the account this creates.
   */
  #load(key: MeteredKey, windowStart: number): Promise<Account> {
    let loading = this.#loading.get(key.id);
    if (!loading) {
      const period = key.resetPeriod;
      loading = this.#store.spentSince(key.id, windowStart).then(
        (spent) => {
          this.#loading.delete(key.id);
          this.#evictIdle();
          const account: Account = { period, windowStart, spent, reserved: 0n };
          this.#accounts.set(key.id, account);
          return account;
        },
        (error: unknown) => {
          this.#loading.delete(key.id);
          throw error;
        },
      );
      this.#loading.set(key.id, loading);
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
