import pg from "pg";
import type { KeyChangeFeed, KeyChangeListener } from "../types";
import { KEY_CHANGES_CHANNEL } from "./migrations";

/** Timing of {@link KeyChangeNotifications}. */
export interface KeyChangeTiming {
  /** How often the listening connection is probed. Default 250 ms. */
  heartbeatMs?: number;
  /** A probe unanswered this long means the connection is lost. Default 500 ms. */
  heartbeatTimeoutMs?: number;
  /** First wait before listening again after a loss; doubles up to 2 s. Default 100 ms. */
  reconnectMs?: number;
}

/**
 * The key-change feed of a PostgreSQL store: one dedicated connection LISTENs on the channel the
 * `api_keys` trigger notifies in every changing transaction, so a change is heard as its
 * transaction commits (milliseconds).
 *
 * A connection that fails loudly (reset, server restart) is seen at once; one that goes silent is
 * seen by the heartbeat: a probe every `heartbeatMs` that must answer within `heartbeatTimeoutMs`.
 * An answered probe also proves every notification committed before it was delivered (the server
 * sends pending notifications before answering). So a change is heard, or the feed reports itself
 * interrupted, within heartbeatMs + heartbeatTimeoutMs (750 ms by default) of its commit; while
 * interrupted, listeners stop trusting what they cached, and the feed listens again with backoff.
 */
export class KeyChangeNotifications implements KeyChangeFeed {
  readonly #connect: () => pg.Client;
  readonly #heartbeatMs: number;
  readonly #heartbeatTimeoutMs: number;
  readonly #reconnectMs: number;
  readonly #listeners = new Set<KeyChangeListener>();
  #client: pg.Client | undefined;
  #listening = false;
  #closed = false;
  #probeSentAt: number | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryDelayMs: number;

  constructor(connect: () => pg.Client, timing: KeyChangeTiming = {}) {
    this.#connect = connect;
    this.#heartbeatMs = timing.heartbeatMs ?? 250;
    this.#heartbeatTimeoutMs = timing.heartbeatTimeoutMs ?? 500;
    this.#reconnectMs = timing.reconnectMs ?? 100;
    this.#retryDelayMs = this.#reconnectMs;
  }

  /** Whether changes are being heard right now. */
  get listening(): boolean {
    return this.#listening;
  }

  /** Listens for the first time; rejects when the database cannot be reached. */
  async start(): Promise<void> {
    await this.#listen();
    this.#heartbeat = setInterval(() => this.#probe(), this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  subscribe(listener: KeyChangeListener): () => void {
    this.#listeners.add(listener);
    if (!this.#listening) listener.interrupted();
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    this.#listening = false;
    await client?.end().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const client = this.#connect();
    // Heard from before it connects to after it ends (a handler of the client's own keeps the process alive).
    client.on("error", () => this.#lost(client));
    client.on("end", () => this.#lost(client));
    client.on("notification", (message) => {
      if (message.channel !== KEY_CHANGES_CHANNEL || !message.payload) return;
      for (const listener of this.#listeners) listener.changed(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#probeSentAt = undefined;
    this.#listening = true;
    this.#retryDelayMs = this.#reconnectMs;
    for (const listener of this.#listeners) listener.resumed();
  }

  #probe(): void {
    const client = this.#client;
    if (!client || !this.#listening) return;
    if (this.#probeSentAt !== undefined) {
      if (Date.now() - this.#probeSentAt > this.#heartbeatTimeoutMs) this.#lost(client);
      return;
    }
    const sentAt = Date.now();
    this.#probeSentAt = sentAt;
    client.query("SELECT 1").then(
      () => {
        if (this.#client === client && this.#probeSentAt === sentAt) this.#probeSentAt = undefined;
      },
      () => this.#lost(client),
    );
    // The interval may be coarser than the timeout: check the probe on time too.
    setTimeout(() => {
      if (this.#client === client && this.#probeSentAt === sentAt) this.#lost(client);
    }, this.#heartbeatTimeoutMs).unref();
  }

  /** The connection `client` is gone: tell listeners (once), drop it, and listen again later. */
  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    this.#probeSentAt = undefined;
    for (const listener of this.#listeners) listener.interrupted();
    client.end().catch(() => undefined);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#listen().catch(() => {
        this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, 2000);
        this.#scheduleRetry();
      });
    }, this.#retryDelayMs);
    this.#retry.unref();
  }
}
