import type { DatabaseSync } from "node:sqlite";
import { readMigrations } from "../migration-files";

/**
 * The schema's migrations: gateway/migrations/sqlite/NNNN_*.sql (store/migration-files.ts). The
 * database's `PRAGMA user_version` records how many have run; each runs in its own transaction.
 */
const MIGRATIONS = readMigrations("sqlite");

/** The schema version this build expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database to {@link SCHEMA_VERSION}; refuses a database written by a newer build. */
export function migrate(db: DatabaseSync): void {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  const current = row.user_version;
  if (current > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${current}, newer than this gateway's ${SCHEMA_VERSION}; upgrade the gateway`);
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(MIGRATIONS[version]!.sql);
      // PRAGMA takes no bound parameters; the value is our own integer.
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
