import { SECRET_USE_LIMITS } from "@gateway-keys/contract";
import type { SqlRunner } from "./events/sql-runner";
import { num, numOrNull } from "./events/event-rows";

/** Extension `secret_use`: why a previous secret stopped authenticating (the contract's reasons). */
export type PreviousSecretRetireReason = "idle" | "expired" | "revoked" | "rotated";

/** One client's requests with one secret, as a flush adds them. A client sending no `User-Agent` (or whose address is unknown) has null. */
export interface SecretClientTally {
  userAgent: string | null;
  address: string | null;
  firstSeenAt: number;
  lastSeenAt: number;
  requests: number;
}

/**
 * What one process saw of one secret since its last flush. `countedFrom` is the rotation (or
 * creation) of the key record the requests were authenticated against: requests counted against
 * an older record than the stored figures' start predate the last rotation, so they move "last
 * used" but are not counted as requests since the rotation.
 */
export interface SecretUseTally {
  keyId: string;
  secretHash: Buffer;
  countedFrom: number;
  lastUsedAt: number;
  requests: number;
  clients: SecretClientTally[];
}

/** A stored client of a secret. */
export type StoredSecretClient = SecretClientTally;

/** A secret's stored figures: last use, requests since its figures started, most recent clients first. */
export interface SecretFigures {
  lastUsedAt: number | null;
  requests: number;
  clients: StoredSecretClient[];
}

/** The figures of a secret nothing has presented yet. */
export const NO_FIGURES: SecretFigures = { lastUsedAt: null, requests: 0, clients: [] };

/** Figures per key id, then per secret hash (hex). */
export type KeySecretFigures = Map<string, Map<string, SecretFigures>>;

/** A key whose previous secret still authenticates by its row: what the previous-secret scan looks at. */
export interface PreviousSecretCandidate {
  id: string;
  ownerId: string;
  name: string;
  labels: Record<string, string>;
  version: number;
  createdAt: number;
  rotatedAt: number;
  previousSecretHash: Buffer;
  previousSecretExpiresAt: number;
  /** JSON of the key's `previous_secret` column (see keys/secret-use.ts). */
  previousSecret: string;
}

/** `''` in the client columns (part of the primary key, so not null) stands for "not sent" / "unknown". */
const column = (value: string | null): string => value ?? "";
const fromColumn = (value: string): string | null => (value === "" ? null : value);

/**
 * The tables of extension `secret_use`, shared by both stores like the event tables: `secret_use`
 * (per key and secret: last use, requests since its figures started) and `secret_clients` (per key,
 * secret and client fingerprint), plus the previous secret's retirement on `api_keys` — a write that
 * leaves the key's version alone. Runs on a unit of work's connection. A flush is three statements,
 * whatever its size: the tallies go in as one JSON parameter.
 */
export class SecretUseTables {
  readonly #run: SqlRunner;

  constructor(run: SqlRunner) {
    this.#run = run;
  }

  /** A JSON parameter read as rows (`fields`: the names and SQL types of its objects' members). */
  #rows(fields: Record<string, "TEXT" | "BIGINT">): string {
    if (this.#run.dialect === "postgres") {
      return `jsonb_to_recordset(?::jsonb) AS b (${Object.entries(fields).map(([name, type]) => `${name} ${type}`).join(", ")})`;
    }
    return `(SELECT ${Object.keys(fields).map((name) => `json_extract(value, '$.${name}') AS ${name}`).join(", ")} FROM json_each(?)) AS b`;
  }

  #unhex(expression: string): string {
    return this.#run.dialect === "postgres" ? `decode(${expression}, 'hex')` : `unhex(${expression})`;
  }

  /** The larger of a nullable `a` and `b` (SQLite's MAX is null when either is). */
  #greatest(a: string, b: string): string {
    return this.#run.dialect === "postgres" ? `GREATEST(${a}, ${b})` : `MAX(COALESCE(${a}, ${b}), ${b})`;
  }

  #least(a: string, b: string): string {
    return this.#run.dialect === "postgres" ? `LEAST(${a}, ${b})` : `MIN(${a}, ${b})`;
  }

  /** A JSON array parameter of key ids, as a subquery. */
  #keyIds(): string {
    return this.#run.dialect === "postgres" ? "(SELECT jsonb_array_elements_text(?::jsonb))" : "(SELECT value FROM json_each(?))";
  }

  /**
   * Adds one flush of tallies: requests summed (when counted against the stored figures' start or
   * later), last use and last seen the latest, first seen the earliest; then keeps each touched
   * secret's {@link SECRET_USE_LIMITS.clientsPerSecret} most recent clients. Tallies must be sorted
   * by key and secret (so concurrent flushes of many processes lock rows in one order).
   */
  async merge(tallies: readonly SecretUseTally[]): Promise<void> {
    if (tallies.length === 0) return;
    const uses = tallies.map((t) => ({
      key_id: t.keyId,
      hash: t.secretHash.toString("hex"),
      counted_from: t.countedFrom,
      last_used_at: t.lastUsedAt,
      requests: t.requests,
    }));
    await this.#run.all(
      `INSERT INTO secret_use (key_id, secret_hash, counted_from, last_used_at, requests)
      SELECT b.key_id, ${this.#unhex("b.hash")}, b.counted_from, b.last_used_at, b.requests
      FROM ${this.#rows({ key_id: "TEXT", hash: "TEXT", counted_from: "BIGINT", last_used_at: "BIGINT", requests: "BIGINT" })} WHERE true
      ON CONFLICT (key_id, secret_hash) DO UPDATE SET
        last_used_at = ${this.#greatest("secret_use.last_used_at", "excluded.last_used_at")},
        requests = secret_use.requests + CASE WHEN excluded.counted_from >= secret_use.counted_from THEN excluded.requests ELSE 0 END`,
      [JSON.stringify(uses)],
    );
    const clients = tallies.flatMap((t) =>
      t.clients.map((c) => ({
        key_id: t.keyId,
        hash: t.secretHash.toString("hex"),
        user_agent: column(c.userAgent),
        address: column(c.address),
        counted_from: t.countedFrom,
        first_seen_at: c.firstSeenAt,
        last_seen_at: c.lastSeenAt,
        requests: c.requests,
      })),
    );
    if (clients.length > 0) {
      await this.#run.all(
        // A client's requests count when its tally's start is its secret's (just merged above) or later.
        `INSERT INTO secret_clients (key_id, secret_hash, user_agent, address, first_seen_at, last_seen_at, requests)
        SELECT b.key_id, u.secret_hash, b.user_agent, b.address, b.first_seen_at, b.last_seen_at,
          CASE WHEN b.counted_from >= u.counted_from THEN b.requests ELSE 0 END
        FROM ${this.#rows({
          key_id: "TEXT", hash: "TEXT", user_agent: "TEXT", address: "TEXT", counted_from: "BIGINT", first_seen_at: "BIGINT", last_seen_at: "BIGINT", requests: "BIGINT",
        })}
        JOIN secret_use u ON u.key_id = b.key_id AND u.secret_hash = ${this.#unhex("b.hash")} WHERE true
        ON CONFLICT (key_id, secret_hash, user_agent, address) DO UPDATE SET
          first_seen_at = ${this.#least("secret_clients.first_seen_at", "excluded.first_seen_at")},
          last_seen_at = ${this.#greatest("secret_clients.last_seen_at", "excluded.last_seen_at")},
          requests = secret_clients.requests + excluded.requests`,
        [JSON.stringify(clients)],
      );
      await this.#run.all(
        `DELETE FROM secret_clients WHERE (key_id, secret_hash, user_agent, address) IN (
          SELECT key_id, secret_hash, user_agent, address FROM (
            SELECT key_id, secret_hash, user_agent, address,
              ROW_NUMBER() OVER (PARTITION BY key_id, secret_hash ORDER BY last_seen_at DESC) AS recency
            FROM secret_clients WHERE key_id IN ${this.#keyIds()}
          ) AS ranked WHERE recency > ?)`,
        [JSON.stringify([...new Set(tallies.map((t) => t.keyId))]), SECRET_USE_LIMITS.clientsPerSecret],
      );
    }
  }

  /** The stored figures of every secret of the given keys (one read of each table). */
  async figuresOf(keyIds: readonly string[]): Promise<KeySecretFigures> {
    const figures: KeySecretFigures = new Map();
    if (keyIds.length === 0) return figures;
    const ids = JSON.stringify([...new Set(keyIds)]);
    const uses = await this.#run.all<{ key_id: string; secret_hash: Uint8Array; last_used_at: number | bigint | null; requests: number | bigint }>(
      `SELECT key_id, secret_hash, last_used_at, requests FROM secret_use WHERE key_id IN ${this.#keyIds()}`,
      [ids],
    );
    const slot = (keyId: string, hash: Uint8Array): SecretFigures => {
      const byHash = figures.get(keyId) ?? new Map<string, SecretFigures>();
      figures.set(keyId, byHash);
      const hex = Buffer.from(hash).toString("hex");
      let found = byHash.get(hex);
      if (!found) byHash.set(hex, (found = { lastUsedAt: null, requests: 0, clients: [] }));
      return found;
    };
    for (const row of uses) {
      const found = slot(row.key_id, row.secret_hash);
      found.lastUsedAt = numOrNull(row.last_used_at);
      found.requests = num(row.requests);
    }
    const clients = await this.#run.all<{
      key_id: string; secret_hash: Uint8Array; user_agent: string; address: string;
      first_seen_at: number | bigint; last_seen_at: number | bigint; requests: number | bigint;
    }>(
      `SELECT key_id, secret_hash, user_agent, address, first_seen_at, last_seen_at, requests FROM secret_clients
      WHERE key_id IN ${this.#keyIds()} ORDER BY last_seen_at DESC`,
      [ids],
    );
    for (const row of clients) {
      const found = slot(row.key_id, row.secret_hash);
      // A flush trims to the bound; rows of a flush still in flight elsewhere may briefly exceed it.
      if (found.clients.length >= SECRET_USE_LIMITS.clientsPerSecret) continue;
      found.clients.push({
        userAgent: fromColumn(row.user_agent),
        address: fromColumn(row.address),
        firstSeenAt: num(row.first_seen_at),
        lastSeenAt: num(row.last_seen_at),
        requests: num(row.requests),
      });
    }
    return figures;
  }

  /**
   * A rotation, in its unit of work: the replaced secret's figures become the previous secret's —
   * its requests (and its clients') count again from `at`, its last use and clients stay — and the
   * figures of any older secret go. With no previous secret (no grace), the key's figures all go.
   */
  async rotated(keyId: string, replacedHash: Buffer | null, at: number): Promise<void> {
    if (replacedHash === null) {
      if (this.#run.dialect === "postgres") await this.#run.all("SELECT 1 FROM secret_use WHERE key_id = ? ORDER BY secret_hash FOR UPDATE", [keyId]);
      await this.#run.all("DELETE FROM secret_use WHERE key_id = ?", [keyId]);
      await this.#run.all("DELETE FROM secret_clients WHERE key_id = ?", [keyId]);
      return;
    }
    if (this.#run.dialect === "postgres") {
      // The key's figures locked in a flush's order (by secret), before any is changed: a flush of
      // another process waits for the rotation instead of deadlocking with it.
      await this.#run.all("SELECT 1 FROM secret_use WHERE key_id = ? ORDER BY secret_hash FOR UPDATE", [keyId]);
    }
    await this.#run.all("DELETE FROM secret_use WHERE key_id = ? AND secret_hash <> ?", [keyId, replacedHash]);
    await this.#run.all("DELETE FROM secret_clients WHERE key_id = ? AND secret_hash <> ?", [keyId, replacedHash]);
    // Written even when no flush has told of the secret yet: a tally from before the rotation,
    // flushed after it, must find the rotation's start here and not count as since it.
    await this.#run.all(
      `INSERT INTO secret_use (key_id, secret_hash, counted_from, last_used_at, requests) VALUES (?, ?, ?, NULL, 0)
      ON CONFLICT (key_id, secret_hash) DO UPDATE SET counted_from = excluded.counted_from, requests = 0`,
      [keyId, replacedHash, at],
    );
    await this.#run.all("UPDATE secret_clients SET requests = 0 WHERE key_id = ? AND secret_hash = ?", [keyId, replacedHash]);
  }

  /**
   * Retires a key's previous secret at `at` for `reason`, provided it is still `previousHash` and
   * not retired: true for the one unit of work (of any process) that does. The key's version and
   * `updated_at` stay: nobody changed the key. (PostgreSQL's trigger still tells every process's
   * key cache of the row's change.)
   */
  async retirePrevious(keyId: string, previousHash: Buffer, at: number, reason: PreviousSecretRetireReason): Promise<boolean> {
    const rows = await this.#run.all(
      `UPDATE api_keys SET previous_secret_retired_at = ?, previous_secret_retired_reason = ?
      WHERE id = ? AND previous_secret_hash = ? AND previous_secret_retired_at IS NULL RETURNING id`,
      [at, reason, keyId, previousHash],
    );
    return rows.length === 1;
  }

  /** Keys with a previous secret that is neither retired nor revoked, rotated with secret_use terms. */
  async previousSecretCandidates(): Promise<PreviousSecretCandidate[]> {
    const rows = await this.#run.all<{
      id: string; owner_id: string; name: string; labels: string; version: number | bigint; created_at: number | bigint; rotated_at: number | bigint;
      previous_secret_hash: Uint8Array; previous_secret_expires_at: number | bigint; previous_secret: string;
    }>(
      `SELECT id, owner_id, name, labels, version, created_at, rotated_at, previous_secret_hash, previous_secret_expires_at, previous_secret
      FROM api_keys WHERE previous_secret_hash IS NOT NULL AND previous_secret_retired_at IS NULL AND previous_secret IS NOT NULL`,
      [],
    );
    return rows.map((row) => ({
      id: row.id,
      ownerId: row.owner_id,
      name: row.name,
      labels: JSON.parse(row.labels) as Record<string, string>,
      version: num(row.version),
      createdAt: num(row.created_at),
      rotatedAt: num(row.rotated_at),
      previousSecretHash: Buffer.from(row.previous_secret_hash),
      previousSecretExpiresAt: num(row.previous_secret_expires_at),
      previousSecret: row.previous_secret,
    }));
  }
}
