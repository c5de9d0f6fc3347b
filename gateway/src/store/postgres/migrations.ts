import type pg from "pg";
import { readFunctions, readMigrations } from "../migration-files";
import { ADVISORY_LOCK_CLASS } from "./locks";

/**
 * The schema's migrations: gateway/migrations/postgres/NNNN_*.sql (store/migration-files.ts);
 * `schema_migrations` records each one applied. The tables, columns and meanings are the SQLite
 * store's, so rows read the same way (store/account-rows.ts): times are milliseconds since the
 * epoch in BIGINT, credits integer micro-units in BIGINT, booleans 0/1 in INTEGER. What only a
 * shared database needs is added: spend reservations with a lease, the functions that reserve
 * and settle, and the trigger that tells every process of a changed key.
 */
const MIGRATIONS = readMigrations("postgres");
/** Functions replaced whole after migrating (gateway/migrations/postgres/functions). */
const FUNCTIONS = readFunctions("postgres");

/** The schema version this build expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The channel {@link MIGRATIONS}' trigger notifies, with the changed key's id as payload. */
export const KEY_CHANGES_CHANNEL = "gateway_key_changes";

/**
 * Brings the database to {@link SCHEMA_VERSION} (or `target`: tests build older schemas with it),
 * each migration in its own transaction, then replaces {@link FUNCTIONS} in one more, all under a
 * session advisory lock: of N processes starting together one migrates, the others wait and then
 * find nothing to do but replace the functions with the same text. Refuses a database written by a
 * newer build.
 */
export async function migrate(client: pg.ClientBase, target = SCHEMA_VERSION): Promise<void> {
  await client.query("SELECT pg_advisory_lock($1, $2)", [ADVISORY_LOCK_CLASS.migrations, 0]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersionOf(client);
    if (current > SCHEMA_VERSION) {
      throw new Error(`the database has schema version ${current}, newer than this gateway's ${SCHEMA_VERSION}; upgrade the gateway`);
    }
    for (let version = current; version < Math.min(target, SCHEMA_VERSION); version++) {
      await client.query("BEGIN");
      try {
        // No parameters, so the simple protocol runs the migration's many statements in one go.
        await client.query(MIGRATIONS[version]!.sql);
        await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version + 1]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
    // The functions are this build's code for this build's schema, so an older target has none.
    if (target >= SCHEMA_VERSION) await replaceFunctions(client);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1, $2)", [ADVISORY_LOCK_CLASS.migrations, 0]);
  }
}

/** The highest migration applied (0 for an empty database). */
export async function schemaVersionOf(client: pg.ClientBase | pg.Pool): Promise<number> {
  const result = await client.query<{ version: number }>("SELECT COALESCE(MAX(version), 0)::INTEGER AS version FROM schema_migrations");
  return result.rows[0]!.version;
}

/**
 * Runs every functions file in one transaction. CREATE OR REPLACE keeps each function's identity,
 * so the triggers and the cached plans of other sessions that use it carry on with the new body.
 */
async function replaceFunctions(client: pg.ClientBase): Promise<void> {
  await client.query("BEGIN");
  try {
    for (const file of FUNCTIONS) await client.query(file.sql);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
}
