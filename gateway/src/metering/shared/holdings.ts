import type { HeldSpend, KeyChangeFeed, NewLogEntry, RequestOutcome, SharedSpend } from "../interfaces";
import type { SpendBatcher } from "./batcher";

/** Tuning of {@link SpendHoldings}. */
export interface SpendHoldingOptions {
  /** The lease of every reservation row, holdings included (see PostgresStoreOptions.reservationLeaseMs). */
  leaseMs: number;
  /**
   * A holding grows by at least this many times the reservation of the request that asks, and by
   * up to {@link MAX_GROWTH_FACTOR} times that for a key whose requests arrive faster. Default 16.
   */
  requestsPerGrowth?: number;
  /**
   * A holding grows only while the key keeps this many smallest growths free beside it, so
   * holdings exist far from a limit and never near it. Default 16.
   */
  floorGrowths?: number;
  /** A holding unused this long is given back. Default 1000 ms. */
  idleMs?: number;
}

/** This process's holding of one key, as it knows it. */
interface Holding {
  /** Its row; undefined until granted. */
  id: string | undefined;
  /** Micros not drawn by a request in flight. */
  free: bigint;
  /** Requests in flight drawn on it. */
  drawn: number;
  /** When its lease was last set (the sending of the statement that set it). */
  confirmedAt: number;
  lastUsedAt: number;
  growing: boolean;
  /** When the database last refused to grow it (the key is near its limit): not asked again for a while. */
  refusedAt: number;
  /** Requests of the key asked in this process since the growth in flight was asked for. */
  askedSinceGrowth: number;
  /** Requests of the key asked while the last growth was in flight: how fast the holding drains per round trip. */
  demand: number;
}

/**
 * A hot key grows its holding by up to this many times the smallest growth, so the holding still
 * covers the requests that arrive while a growth is in flight. Measured on one key at 16
 * connections (pg_stat_statements under bench/gateway-scale.ts's load): with fixed growths of 16 requests' worth, asked for when
 * two were left, 35% of requests found the holding drained and reserved on their own (a second
 * round trip, and 0.46 of SQLite's throughput); sized to the demand, under 1% (0.60).
 */
const MAX_GROWTH_FACTOR = 4;

/**
 * Spend reservations in PostgreSQL with holdings: a process asks the database for more than one
 * request's reservation of a key (a holding: a reservation row of its own, counted against the
 * limit like any), and its next requests of that key reserve in memory, drawing on it, so each
 * makes one round trip (the settle, which takes its share out of the holding and charges it)
 * instead of two. The database still decides every micro: a holding is granted, in the same
 * atomic check as any reservation, only while the key keeps {@link SpendHoldingOptions.floorGrowths}
 * times the growth free beside it — so holdings exist far from a limit, and near it every request
 * reserves on its own, exactly as without holdings.
 *
 * A holding is used only while its lease is known to run (renewed with the process's other
 * reservations; see {@link SpendHoldings.renewed}), is dropped on any change of its key or any
 * interruption of the key-change feed (a limit lowered elsewhere stops draws as fast as a revoke
 * stops requests), and is given back once idle.
 */
export class SpendHoldings implements SharedSpend {
  readonly #batcher: SpendBatcher;
  readonly #leaseMs: number;
  /** Requests' worth of the smallest growth. */
  readonly #requestsPerGrowth: number;
  readonly #floorGrowths: bigint;
  readonly #idleMs: number;
  /** By key: the holdings drawn on. */
  readonly #holdings = new Map<string, Holding>();
  /** By row id: every holding granted and not yet given back, drawn on or not. */
  readonly #byId = new Map<string, Holding>();
  /** Rows of single requests' reservations, from their grant until settled or given back. */
  readonly #ownRows = new Set<string>();
  readonly #sweep: NodeJS.Timeout;
  readonly #unsubscribe: () => void;
  #closed = false;
  /** Whether the key-change feed is heard (subscribe says at once when it is not). */
  #hearing = true;

  readonly #headroom: SharedSpend["headroom"];

  /** @param headroom reads a key's headroom in the database (no holding is involved in a reading). */
  constructor(batcher: SpendBatcher, keyChanges: KeyChangeFeed, headroom: SharedSpend["headroom"], options: SpendHoldingOptions) {
    this.#batcher = batcher;
    this.#headroom = headroom;
    this.#leaseMs = options.leaseMs;
    this.#requestsPerGrowth = options.requestsPerGrowth ?? 16;
    this.#floorGrowths = BigInt(options.floorGrowths ?? 16);
    this.#idleMs = options.idleMs ?? 1000;
    this.#unsubscribe = keyChanges.subscribe({
      changed: (keyId) => void this.#drop(keyId),
      interrupted: () => {
        // A change could go unheard: no holding is drawn on, nor granted, until the feed is back.
        this.#hearing = false;
        for (const keyId of [...this.#holdings.keys()]) void this.#drop(keyId);
      },
      resumed: () => {
        this.#hearing = true;
      },
    });
    this.#sweep = setInterval(() => this.#releaseIdle(), Math.max(10, Math.floor(this.#idleMs / 2)));
    this.#sweep.unref();
  }

  headroom(keyId: string, at: number): Promise<bigint | null> {
    return this.#headroom(keyId, at);
  }

  async reserve(keyId: string, micros: bigint, at: number): Promise<HeldSpend | undefined> {
    const now = Date.now();
    let holding = this.#holdings.get(keyId);
    if (!holding) {
      holding = { id: undefined, free: 0n, drawn: 0, confirmedAt: 0, lastUsedAt: now, growing: false, refusedAt: -Infinity, askedSinceGrowth: 0, demand: 0 };
      this.#holdings.set(keyId, holding);
    }
    holding.lastUsedAt = now;
    holding.askedSinceGrowth++;
    // Half a lease of margin: the row outlives its last confirmation by a whole one.
    const live = this.#hearing && holding.id !== undefined && now - holding.confirmedAt < this.#leaseMs / 2;
    if (live && holding.free >= micros) {
      holding.free -= micros;
      holding.drawn++;
      if (holding.free < micros * BigInt(this.#growBelowRequests(holding))) this.#grow(keyId, holding, micros, at);
      return { row: holding.id!, drawn: micros };
    }
    this.#grow(keyId, holding, micros, at);
    const row = await this.#batcher.reserve({ keyId, micros, holding: null, floor: 0n, at });
    if (row === undefined) return undefined;
    this.#ownRows.add(row);
    return { row, drawn: null };
  }

  /** Every reservation row this process holds: the only ones its lease renewal keeps. */
  liveRows(): string[] {
    return [...this.#byId.keys(), ...this.#ownRows];
  }

  settle(held: HeldSpend, entry: NewLogEntry, outcome: RequestOutcome): Promise<void> {
    if (held.drawn === null) {
      return this.#batcher.settle({ row: held.row, take: null, entry, outcome }).then(
        () => {
          this.#ownRows.delete(held.row);
        },
        (error: unknown) => {
          // Not settled (the database failed): give its row back once the database answers,
          // rather than hold the key's budget until the row's lease lapses.
          void this.#giveBack(entry.keyId, held.row).finally(() => this.#ownRows.delete(held.row));
          throw error;
        },
      );
    }
    const holding = this.#byId.get(held.row);
    return this.#batcher.settle({ row: held.row, take: held.drawn, entry, outcome }).finally(() => {
      if (holding) holding.drawn--;
    });
  }

  /**
   * The lease renewal sent at `sentAt` asked to renew the rows `asked` (this process's live rows
   * then) and renewed `ids`: holdings among them are confirmed; a holding it asked for, confirmed
   * before it and not renewed, ran out, and is dropped. A holding granted after the renewal's rows
   * were listed was not asked for: its grant set its lease, so it is no concern of this renewal.
   */
  renewed(sentAt: number, asked: ReadonlySet<string>, ids: ReadonlySet<string>): void {
    for (const [keyId, holding] of this.#holdings) {
      if (holding.id === undefined || !asked.has(holding.id)) continue;
      if (ids.has(holding.id)) holding.confirmedAt = Math.max(holding.confirmedAt, sentAt);
      else if (holding.confirmedAt < sentAt) {
        // Its row is gone (or going): nothing to give back.
        this.#holdings.delete(keyId);
        this.#byId.delete(holding.id);
      }
    }
  }

  /** Gives every holding back. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    this.#unsubscribe();
    await Promise.all([...this.#holdings.keys()].map((keyId) => this.#drop(keyId)));
  }

  /** Asks, in the next batch, for the holding to grow (or be granted). */
  #grow(keyId: string, holding: Holding, micros: bigint, at: number): void {
    const sentAt = Date.now();
    if (!this.#hearing || holding.growing || sentAt - holding.refusedAt < this.#idleMs) return;
    holding.growing = true;
    holding.askedSinceGrowth = 0;
    const growth = micros * BigInt(this.#growthRequests(holding));
    const floor = micros * BigInt(this.#requestsPerGrowth) * this.#floorGrowths;
    this.#batcher
      .reserve({ keyId, micros: growth, holding: holding.id ?? "0", floor, at })
      .then(
        (id) => {
          holding.growing = false;
          // Up at once, down by halves: one quiet round trip does not leave the next busy one short.
          holding.demand = Math.max(holding.askedSinceGrowth, Math.floor(holding.demand / 2));
          // Dropped meanwhile (its key changed, or the feed was interrupted): what was granted goes back at once.
          if (this.#holdings.get(keyId) !== holding) {
            if (id !== undefined && id !== holding.id) void this.#batcher.release({ holdingId: id, keyId }).catch(() => undefined);
            return;
          }
          if (id === undefined) {
            holding.refusedAt = Date.now();
            return;
          }
          // A holding that has a row only ever grows that row (the database refuses to grow a
          // row that ran out rather than make another), so a new id is the first grant.
          if (holding.id === undefined) {
            holding.id = id;
            this.#byId.set(id, holding);
          }
          holding.free += growth;
          holding.confirmedAt = sentAt;
        },
        () => {
          holding.growing = false;
        },
      );
  }

  /**
   * Requests' worth left below which a holding grows: twice the requests that arrived during its
   * last growth's round trip (at least 2, at most the largest growth), so the next growth lands
   * before it runs dry.
   */
  #growBelowRequests(holding: Holding): number {
    return Math.max(2, Math.min(2 * holding.demand, this.#requestsPerGrowth * MAX_GROWTH_FACTOR));
  }

  /** Requests' worth a holding grows by: twice the margin above, so a hot key asks about once per two round trips. */
  #growthRequests(holding: Holding): number {
    return Math.min(this.#requestsPerGrowth * MAX_GROWTH_FACTOR, Math.max(this.#requestsPerGrowth, 4 * holding.demand));
  }

  /** Stops drawing on the key's holding and gives back what it holds (its draws in flight still settle against the row first). */
  #drop(keyId: string): Promise<void> {
    const holding = this.#holdings.get(keyId);
    this.#holdings.delete(keyId);
    if (holding?.id === undefined) return Promise.resolve();
    return this.#releaseWhenSettled(keyId, holding.id, holding);
  }

  async #releaseWhenSettled(keyId: string, holdingId: string, holding: Holding): Promise<void> {
    // Released after its draws settle, or their takes would find no row (and give back nothing twice).
    while (holding.drawn > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.#giveBack(keyId, holdingId);
    this.#byId.delete(holdingId);
  }

  /**
   * Deletes the reservation row `rowId`, giving back what it holds. Until given back the row is
   * still renewed with this process's others: keep trying, through a database outage (the lease
   * ends it anyway should this process die meanwhile).
   */
  async #giveBack(keyId: string, rowId: string): Promise<void> {
    for (let attempt = 0; !this.#closed || attempt === 0; attempt++) {
      try {
        await this.#batcher.release({ holdingId: rowId, keyId });
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5000)).unref());
      }
    }
  }

  #releaseIdle(): void {
    const now = Date.now();
    for (const [keyId, holding] of this.#holdings) {
      if (holding.drawn === 0 && !holding.growing && now - holding.lastUsedAt > this.#idleMs) void this.#drop(keyId);
    }
  }
}
