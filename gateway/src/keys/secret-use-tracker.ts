import { SECRET_USE_LIMITS } from "@gateway-keys/contract";
import type { SecretClientTally, SecretUseTally } from "../store/secret-use-tables";
import type { Store, StoredApiKey } from "../store/types";
import type { SecretMatch } from "./records";

/** How often each process adds what it saw to the database, unless configured. */
export const DEFAULT_SECRET_USE_FLUSH_MS = 2000;

/** What this process saw of one secret, authenticated against one version of its key's rotation. */
interface PendingSecret {
  keyId: string;
  secretHash: Buffer;
  countedFrom: number;
  lastUsedAt: number;
  requests: number;
  /** By fingerprint (`User-Agent` NUL address). */
  clients: Map<string, SecretClientTally>;
}

/**
 * Extension `secret_use`: counts, in memory, which secret of which key authenticated each request
 * and from which client, and adds it to the database every `flushIntervalMs` (and on close) in one
 * unit of work — so tracking costs a few map operations per request and no write. A crash loses
 * what was seen since the last flush (seconds of "last used" and of request counts, never a
 * charge: charges are metering's). A flush that fails is kept and added to the next.
 */
export class SecretUseTracker {
  readonly #store: Store;
  #pending = new Map<string, PendingSecret>();
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * A request authenticated with `key`'s `which` secret at `at`, from a client that sent
   * `userAgent` (cut to its bound) from `address` (as the trusted proxy reports it).
   */
  seen(key: StoredApiKey, which: Exclude<SecretMatch, "none">, userAgent: string | undefined, address: string | undefined, at: number): void {
    const countedFrom = key.rotatedAt ?? key.createdAt;
    const id = `${key.id}\u0000${which}\u0000${countedFrom}`;
    let secret = this.#pending.get(id);
    if (secret === undefined) {
      const secretHash = which === "current" ? key.secretHash : key.previousSecretHash!;
      secret = { keyId: key.id, secretHash, countedFrom, lastUsedAt: at, requests: 0, clients: new Map() };
      this.#pending.set(id, secret);
    }
    secret.requests++;
    if (at > secret.lastUsedAt) secret.lastUsedAt = at;
    const agent = userAgent === undefined || userAgent === "" ? null : userAgent.slice(0, SECRET_USE_LIMITS.userAgentMaxLength);
    const from = address === undefined || address === "" ? null : address;
    const fingerprint = `${agent ?? ""}\u0000${from ?? ""}`;
    const client = secret.clients.get(fingerprint);
    if (client !== undefined) {
      client.requests++;
      if (at > client.lastSeenAt) client.lastSeenAt = at;
      return;
    }
    if (secret.clients.size >= SECRET_USE_LIMITS.clientsPerSecret) dropLeastRecent(secret.clients);
    secret.clients.set(fingerprint, { userAgent: agent, address: from, firstSeenAt: at, lastSeenAt: at, requests: 1 });
  }

  /** Adds what was seen since the last flush to the database; resolves once it committed (or failed and was kept). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.size === 0) return;
    const taken = this.#pending;
    this.#pending = new Map();
    const tallies = talliesOf(taken.values());
    try {
      await this.#store.transaction((tx) => tx.secretUse.merge(tallies));
    } catch (error) {
      // Kept for the next flush: a database outage delays the figures, it does not lose them.
      for (const [id, secret] of taken) this.#restore(id, secret);
      throw error;
    }
  }

  #restore(id: string, secret: PendingSecret): void {
    const newer = this.#pending.get(id);
    if (newer === undefined) {
      this.#pending.set(id, secret);
      return;
    }
    newer.requests += secret.requests;
    newer.lastUsedAt = Math.max(newer.lastUsedAt, secret.lastUsedAt);
    for (const [fingerprint, client] of secret.clients) {
      const seen = newer.clients.get(fingerprint);
      if (seen === undefined) newer.clients.set(fingerprint, client);
      else {
        seen.requests += client.requests;
        seen.firstSeenAt = Math.min(seen.firstSeenAt, client.firstSeenAt);
        seen.lastSeenAt = Math.max(seen.lastSeenAt, client.lastSeenAt);
      }
    }
  }
}

function dropLeastRecent(clients: Map<string, SecretClientTally>): void {
  let oldest: string | undefined;
  let oldestAt = Number.POSITIVE_INFINITY;
  for (const [fingerprint, client] of clients) {
    if (client.lastSeenAt < oldestAt) {
      oldestAt = client.lastSeenAt;
      oldest = fingerprint;
    }
  }
  if (oldest !== undefined) clients.delete(oldest);
}

/**
 * One tally per key and secret, sorted by both (so every process's flush locks rows in one order).
 * A secret seen against two rotations of its key (as the current secret, then as the previous one
 * after a rotation) is one tally counted from the later: requests before that rotation do not count
 * as since it, though they still move its last use.
 */
function talliesOf(pending: Iterable<PendingSecret>): SecretUseTally[] {
  const bySecret = new Map<string, SecretUseTally>();
  for (const secret of pending) {
    const id = `${secret.keyId}\u0000${secret.secretHash.toString("hex")}`;
    const clients = [...secret.clients.values()];
    const tally = bySecret.get(id);
    if (tally === undefined) {
      bySecret.set(id, { keyId: secret.keyId, secretHash: secret.secretHash, countedFrom: secret.countedFrom, lastUsedAt: secret.lastUsedAt, requests: secret.requests, clients });
      continue;
    }
    const later = secret.countedFrom > tally.countedFrom;
    const same = secret.countedFrom === tally.countedFrom;
    tally.lastUsedAt = Math.max(tally.lastUsedAt, secret.lastUsedAt);
    tally.requests = same ? tally.requests + secret.requests : later ? secret.requests : tally.requests;
    tally.clients = mergeClients(later ? clients : tally.clients, later ? tally.clients : clients, same);
    tally.countedFrom = Math.max(tally.countedFrom, secret.countedFrom);
  }
  return [...bySecret.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, tally]) => tally);
}

/** `counted`'s clients, with `other`'s seen times; `other`'s requests added only when `sameStart`. */
function mergeClients(counted: SecretClientTally[], other: SecretClientTally[], sameStart: boolean): SecretClientTally[] {
  const merged = new Map(counted.map((client) => [`${client.userAgent ?? ""}\u0000${client.address ?? ""}`, { ...client }]));
  for (const client of other) {
    const fingerprint = `${client.userAgent ?? ""}\u0000${client.address ?? ""}`;
    const seen = merged.get(fingerprint);
    if (seen === undefined) merged.set(fingerprint, { ...client, requests: sameStart ? client.requests : 0 });
    else {
      seen.firstSeenAt = Math.min(seen.firstSeenAt, client.firstSeenAt);
      seen.lastSeenAt = Math.max(seen.lastSeenAt, client.lastSeenAt);
      if (sameStart) seen.requests += client.requests;
    }
  }
  return [...merged.values()];
}
