/** The migration files the package ships, and the runner's refusal of a folder it cannot order. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFunctions, readMigrations } from "@gateway-keys/gateway/dist/store/migration-files";
import { SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION } from "@gateway-keys/gateway/dist/store/postgres/migrations";
import { SCHEMA_VERSION as SQLITE_SCHEMA_VERSION } from "@gateway-keys/gateway/dist/store/sqlite/migrations";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gateway-migrations-"));
  mkdirSync(join(root, "sqlite"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (name: string, sql = "SELECT 1;") => writeFileSync(join(root, "sqlite", name), sql);

test("each store's schema version is the number of its migration files, numbered from 1 in order", () => {
  for (const [dialect, version] of [["sqlite", SQLITE_SCHEMA_VERSION], ["postgres", POSTGRES_SCHEMA_VERSION]] as const) {
    const files = readMigrations(dialect);
    expect(files.map((file) => file.version)).toEqual(Array.from({ length: version }, (_, index) => index + 1));
    expect(files.every((file) => file.sql.trim().length > 0)).toBe(true);
  }
});

test("the PostgreSQL functions recreated after migrating (the spend function among them) are each written in one file, and no migration creates them", () => {
  const files = readFunctions("postgres");
  expect(files.map((file) => file.name)).toEqual(expect.arrayContaining(["gateway_spend_batch.sql"]));
  const created = files.flatMap((file) => [...file.sql.matchAll(/CREATE (?:OR REPLACE )?FUNCTION (\w+)/g)].map((match) => match[1]!));
  // Each file is named after the first function it creates.
  expect(files.map((file) => file.name.replace(/\.sql$/, ""))).toEqual(files.map((file) => /CREATE (?:OR REPLACE )?FUNCTION (\w+)/.exec(file.sql)?.[1]));
  const creating = readMigrations("postgres").filter((file) => created.some((name) => new RegExp(`CREATE (OR REPLACE )?FUNCTION ${name}\\b`).test(file.sql)));
  expect(creating.map((file) => file.name)).toEqual([]);
  expect(new Set(created).size).toBe(created.length);
});

test("reads the files in number order, whatever order the folder lists them in", () => {
  write("0002_second.sql", "-- two");
  write("0001_first.sql", "-- one");
  writeFileSync(join(root, "sqlite", "README.md"), "not a migration");
  expect(readMigrations("sqlite", root)).toEqual([
    { version: 1, name: "0001_first.sql", sql: "-- one" },
    { version: 2, name: "0002_second.sql", sql: "-- two" },
  ]);
});

test("refuses a gap in the numbers, naming the file and the number it should have", () => {
  write("0001_first.sql");
  write("0003_third.sql");
  expect(() => readMigrations("sqlite", root)).toThrow("migration file sqlite/0003_third.sql should be number 2: the numbers run from 0001 without a gap");
});

test("refuses a misnamed file, saying how files are named", () => {
  write("0001_first.sql");
  write("2_Second.sql");
  expect(() => readMigrations("sqlite", root)).toThrow("migration file sqlite/2_Second.sql must be named NNNN_what.sql (lower case, digits and _)");
});
