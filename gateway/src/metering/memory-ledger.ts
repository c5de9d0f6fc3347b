import type { ResetPeriod } from "@gateway-keys/contract";
import type { NewLogEntry, RequestOutcome, SpendRecords, MeteredKey } from "./interfaces";
import type { Ledger, SpendReservation } from "./ledger";
import { refusalAt, subjectsOf, type SpendRefusal, type SubjectWindow, type WindowedSubject } from "./spend-windows";

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
    // Every window followed and loaded (the usual case): no await before the check.
    while (!this.#followed(subjects)) await this.#follow(subjects);
    // From here to the end: synchronous, so the checks and the reservations are one step.
    if (this.#firstShort(subjects, micros) !== -1) return undefined;
    for (const subject of subjects) this.#subjects.get(subject.id)!.reserved += micros;
    return { keyId: key.id, micros, subjects: subjects.map((subject) => subject.id) };
  }

  async headroom(key: MeteredKey, at: number): Promise<bigint | null> {
    const subjects = subjectsOf(key, at);
    if (subjects.length === 0) return null;
    while (!this.#followed(subjects)) await this.#follow(subjects);
    let tightest: bigint | null = null;
    for (const subject of subjects) {
      const account = this.#subjects.get(subject.id)!;
      for (const window of subject.windows) {
        const left = window.limitMicros - account.windows.get(window.resetPeriod)!.spent - account.reserved;
        if (tightest === null || left < tightest) tightest = left;
      }
    }
    return tightest;
  }

  async refusal(key: MeteredKey, micros: bigint, at: number): Promise<SpendRefusal | undefined> {
    const subjects = subjectsOf(key, at);
    while (!this.#followed(subjects)) await this.#follow(subjects);
    const index = this.#firstShort(subjects, micros);
    return index === -1 ? undefined : refusalAt(subjects, index);
  }

  async settle(reservation: SpendReservation, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    try {
      await this.#store.recordRequest(entry, outcome);
      // Counted in every window followed of the key and of the team the request was charged to.
      // A request that began before a window's start (in flight over the boundary) counts in the window it began in.
      this.#count(entry.keyId, entry);
      if (entry.teamId !== null) this.#count(entry.teamId, entry);
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

  /** Counts a committed charge in each window of `subjectId` that holds the request's time. */
  #count(subjectId: string, entry: NewLogEntry): void {
    for (const window of this.#subjects.get(subjectId)?.windows.values() ?? []) {
      if (entry.createdAt >= window.start && (window.end === null || entry.createdAt < window.end)) window.spent += entry.costMicros;
    }
  }

  /**
   * Whether every window of the subjects is followed here, loaded, and current at the request's
   * time. A request of an earlier window (it began before the boundary and reserves after one of
   * the new window did) is checked against the current window, which counts every reservation anyway.
   */
  #followed(subjects: readonly WindowedSubject[]): boolean {
    for (const subject of subjects) {
      const account = this.#subjects.get(subject.id);
      if (!account) return false;
      for (const window of subject.windows) {
        const followed = account.windows.get(window.resetPeriod);
        if (!followed || !followed.ready || window.start > followed.start) return false;
      }
    }
    return true;
  }

  /**
   * Starts following each window of the subjects not followed yet, and waits for their spend to
   * load. A window the calendar moved past (its account loaded) starts again: the new window's
   * spend is read again (charges of requests that began in it, which no account of the old window
   * counted), then followed.
   */
  async #follow(subjects: readonly WindowedSubject[]): Promise<void> {
    const loading: Promise<void>[] = [];
    for (const subject of subjects) {
      const account = this.#subject(subject.id, subject.kind);
      for (const window of subject.windows) {
        const followed = this.#window(subject.id, account, window);
        if (!followed.ready) loading.push(followed.loaded);
        else if (window.start > followed.start) loading.push(this.#open(subject.id, account, window, followed).loaded);
      }
    }
    await Promise.all(loading);
  }

  /** The index, over the subjects' windows in order, of the first that cannot afford `micros` more (followed and loaded); -1 when all can. */
  #firstShort(subjects: readonly WindowedSubject[], micros: bigint): number {
    let index = 0;
    for (const subject of subjects) {
      const account = this.#subjects.get(subject.id)!;
      for (const window of subject.windows) {
        if (account.windows.get(window.resetPeriod)!.spent + account.reserved + micros > window.limitMicros) return index;
        index++;
      }
    }
    return -1;
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
