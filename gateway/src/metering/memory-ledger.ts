import type { ResetPeriod } from "@gateway-keys/contract";
import type { NewLogEntry, RequestOutcome, SpendRecords, MeteredKey } from "./interfaces";
import type { Ledger, SpendReservation } from "./ledger";
import { refusalAt, subjectsOf, type SpendRefusal, type SubjectWindow } from "./spend-windows";

/** One window of a subject as this process follows it. */
interface WindowAccount {
  /** Start of the window `spent` counts (0 for a lifetime window). */
  start: number;
  /** Its end (the next window's start); null for a lifetime window. */
  end: number | null;
  /** Committed charges of requests that began in the window. */
  spent: bigint;
  /** Resolves once `spent` holds what the store had when the account was opened. */
  loaded: Promise<void>;
  /** `loaded` has resolved: a reservation need not wait for it. */
  ready: boolean;
}

/** One window of one subject, as a reservation checks it. */
interface AccountEntry {
  subjectId: string;
  account: SubjectAccount;
  window: SubjectWindow;
  windowAccount: WindowAccount;
}

/** A key or a team: its windows, and what its requests in flight reserved (counted in every window alike). */
interface SubjectAccount {
  kind: "key" | "team";
  reserved: bigint;
  windows: Map<ResetPeriod, WindowAccount>;
}

/**
 * The spend policy in this process's memory: no key, and no team, ever spends past a window's
 * limit, however many requests run at once. A request first reserves the most it can cost from
 * every window of its key and of its key's team; the checks (each window's committed spend + its
 * subject's reservations in flight + this one ≤ its limit) and the reservations are one synchronous
 * step, so no two requests can both pass them, and a request either reserves everywhere or
 * nowhere. Settling records the request with its actual cost (committed in the store), counts it
 * in every window of its key and of the team its log row names, then releases the reservation.
 *
 * Reservations live in this process: they belong to requests in flight here and die with it (a
 * crash cannot leak one). That is exact while one process serves a database, as with SQLite
 * (many processes sharing PostgreSQL use `SharedLedger`). A window's spend is read from the store
 * (spend per day) when the ledger first meets it, and from then on followed charge by charge; a
 * window's account exists before that read starts, so a charge settling meanwhile is counted in it
 * — at worst twice (too careful, never over the limit), never missed. When the calendar passes a
 * boundary the next window starts at zero, since every request of the new window reserves here.
 */
export class MemoryLedger implements Ledger {
  readonly #store: SpendRecords;
  readonly #capacity: number;
  readonly #subjects = new Map<string, SubjectAccount>();

  constructor(store: SpendRecords, capacity = 10_000) {
    this.#store = store;
    this.#capacity = capacity;
  }

  async reserve(key: MeteredKey, micros: bigint, at: number): Promise<SpendReservation | undefined> {
    const subjects = subjectsOf(key, at);
    if (subjects.length === 0) return { keyId: key.id, micros };
    const accounts = await this.#accounts(subjects);
    // From here to the end: synchronous, so the checks and the reservations are one step.
    for (const { account, window, windowAccount } of accounts) {
      if (windowAccount.spent + account.reserved + micros > window.limitMicros) return undefined;
    }
    const reserved = [...new Set(accounts.map((entry) => entry.subjectId))];
    for (const id of reserved) this.#subjects.get(id)!.reserved += micros;
    return { keyId: key.id, micros, subjects: reserved };
  }

  async headroom(key: MeteredKey, at: number): Promise<bigint | null> {
    const subjects = subjectsOf(key, at);
    if (subjects.length === 0) return null;
    const left = (await this.#accounts(subjects)).map(({ account, window, windowAccount }) => window.limitMicros - windowAccount.spent - account.reserved);
    return left.reduce((tightest, each) => (each < tightest ? each : tightest));
  }

  async refusal(key: MeteredKey, micros: bigint, at: number): Promise<SpendRefusal | undefined> {
    const subjects = subjectsOf(key, at);
    const accounts = await this.#accounts(subjects);
    const index = accounts.findIndex(({ account, window, windowAccount }) => windowAccount.spent + account.reserved + micros > window.limitMicros);
    return index === -1 ? undefined : refusalAt(subjects, index);
  }

  async settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    try {
      await this.#store.recordRequest(entry, outcome);
      // Counted in every window followed of the key and of the team the request was charged to.
      // A request that began before a window's start (in flight over the boundary) counts in the window it began in.
      for (const subjectId of entry.teamId === null ? [entry.keyId] : [entry.keyId, entry.teamId]) {
        for (const window of this.#subjects.get(subjectId)?.windows.values() ?? []) {
          if (entry.createdAt >= window.start && (window.end === null || entry.createdAt < window.end)) window.spent += entry.costMicros;
        }
      }
    } finally {
      // Released only now: until the charge is counted in `spent`, the reservation covers it.
      for (const subjectId of reservation.subjects ?? []) {
        const account = this.#subjects.get(subjectId);
        if (account) account.reserved -= reservation.micros;
      }
    }
  }

  recordUncharged(entry: NewLogEntry, outcome: Exclude<RequestOutcome, "succeeded">): Promise<void> {
    return this.#store.recordRequest(entry, outcome);
  }

  /** Each window of the subjects with its accounts, every one loaded and in the window that holds the request's time. */
  async #accounts(subjects: ReturnType<typeof subjectsOf>): Promise<AccountEntry[]> {
    const entries: AccountEntry[] = subjects.flatMap((subject) =>
      subject.windows.map((window) => {
        const account = this.#subject(subject.id, subject.kind);
        return { subjectId: subject.id, account, window, windowAccount: this.#window(subject.id, account, window) };
      }),
    );
    if (!entries.every((entry) => entry.windowAccount.ready)) await Promise.all(entries.map((entry) => entry.windowAccount.loaded));
    const rolled = entries.filter(({ window, windowAccount }) => window.start > windowAccount.start);
    if (rolled.length > 0) {
      // The calendar passed a boundary: the new window's spend is read again (charges of requests
      // that began in it, which no account of the old window counted), then followed.
      for (const { subjectId, account, window, windowAccount } of rolled) {
        if (window.start > windowAccount.start) this.#open(subjectId, account, window, windowAccount);
      }
      return this.#accounts(subjects);
    }
    // A request of an earlier window (it began before the boundary and reserves after one of the
    // new window did) is checked against the current window, which counts every reservation anyway.
    return entries;
  }

  #subject(id: string, kind: "key" | "team"): SubjectAccount {
    let account = this.#subjects.get(id);
    if (!account) {
      this.#evictIdle();
      account = { kind, reserved: 0n, windows: new Map() };
      this.#subjects.set(id, account);
    }
    return account;
  }

  #window(subjectId: string, account: SubjectAccount, window: SubjectWindow): WindowAccount {
    return account.windows.get(window.resetPeriod) ?? this.#open(subjectId, account, window, { start: 0, end: null, spent: 0n, loaded: Promise.resolve(), ready: false });
  }

  /**
   * Starts following `window` in `opened` (a new account, or one of the window before): its spend
   * reads from zero at once, so charges that settle during the read count in it, and the store's
   * sum is added when it comes (a charge both committed before the read and counted since counts
   * twice: too careful, never over).
   */
  #open(subjectId: string, account: SubjectAccount, window: SubjectWindow, opened: WindowAccount): WindowAccount {
    opened.start = window.start;
    opened.end = window.endsAt;
    opened.spent = 0n;
    opened.ready = false;
    const read = account.kind === "team" ? this.#store.teamSpentSince(subjectId, window.start) : this.#store.spentSince(subjectId, window.start);
    opened.loaded = read.then(
      (spent) => {
        opened.spent += spent;
        opened.ready = true;
      },
      (error: unknown) => {
        // Not followed after all: the next request reads it again.
        if (account.windows.get(window.resetPeriod) === opened) account.windows.delete(window.resetPeriod);
        throw error;
      },
    );
    account.windows.set(window.resetPeriod, opened);
    return opened;
  }

  /** Keeps memory bounded: forgets the oldest subjects with nothing in flight (they reload exactly). */
  #evictIdle(): void {
    if (this.#subjects.size < this.#capacity) return;
    for (const [id, account] of this.#subjects) {
      if (account.reserved === 0n) this.#subjects.delete(id);
      if (this.#subjects.size < this.#capacity / 2) return;
    }
  }
}
