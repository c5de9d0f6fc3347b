import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The schema's migrations as the package ships them: `migrations/<dialect>/NNNN_<what>.sql`, numbered
 * from 0001 without a gap, one transaction each (the runners: sqlite/migrations.ts,
 * postgres/migrations.ts). Append a file to change the schema; never edit one that has shipped.
 * `migrations/<dialect>/functions/*.sql` hold database code that is replaced whole (CREATE OR
 * REPLACE) after every migration run, so each function is written in one place.
 */
export interface MigrationFile {
  /** The number the file starts with: the schema version it brings the database to. */
  version: number;
  /** The file's name, for error messages. */
  name: string;
  sql: string;
}

/** The database dialects with a migrations folder. */
export type MigrationDialect = "sqlite" | "postgres";

/** `gateway/migrations`, the same two levels up from `src/store` and `dist/store`. */
const MIGRATIONS_ROOT = join(__dirname, "..", "..", "migrations");
const MIGRATION_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

/** The numbered migrations of `dialect`, in order; throws on a misnamed, missing or repeated number. */
export function readMigrations(dialect: MigrationDialect, root = MIGRATIONS_ROOT): MigrationFile[] {
  const dir = join(root, dialect);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".sql"))
    .map((entry) => entry.name)
    .sort();
  return names.map((name, index) => {
    const match = MIGRATION_NAME.exec(name);
    if (!match) throw new Error(`migration file ${dialect}/${name} must be named NNNN_what.sql (lower case, digits and _)`);
    const version = Number(match[1]);
    if (version !== index + 1) throw new Error(`migration file ${dialect}/${name} should be number ${index + 1}: the numbers run from 0001 without a gap`);
    return { version, name, sql: readFileSync(join(dir, name), "utf8") };
  });
}

/** The files of `migrations/<dialect>/functions`, by name: code replaced whole after migrating. */
export function readFunctions(dialect: MigrationDialect, root = MIGRATIONS_ROOT): { name: string; sql: string }[] {
  const dir = join(root, dialect, "functions");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), "utf8") }));
}
