/**
 * A database written by the release before migrations became files (fixtures/release-93811d1, made
 * by main at 93811d1 through its account and model APIs) upgrades in place: the current gateway
 * answers about it exactly as that release did, its secrets authenticate as they did, and its
 * schema ends up the same as a database this build creates.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { openPostgresStore, startGateway } from "@gateway-keys/gateway";
import { SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION } from "@gateway-keys/gateway/dist/store/postgres/migrations";
import { SCHEMA_VERSION as SQLITE_SCHEMA_VERSION } from "@gateway-keys/gateway/dist/store/sqlite/migrations";
import { findPostgresBinaries } from "@gateway-keys/testkit/postgres";
import { createTestClock, startTestGateway, testPostgres, type TestPostgres } from "@gateway-keys/testkit/test-gateway";
import { call } from "./helpers";
import { readScenario, SCENARIO_START, type ScenarioReader, type ScenarioSecrets } from "./release-scenario";
import { testWith } from "../support/needs";

const FIXTURE = join(__dirname, "fixtures", "release-93811d1");
const testWithPostgres = testWith("postgres");

interface Recorded {
  secrets: ScenarioSecrets;
  answers: Record<string, unknown>;
}
const recorded = (name: string): Recorded & { encryptionKey?: string } => JSON.parse(readFileSync(join(FIXTURE, name), "utf8"));

type Json = Record<string, any>;

/**
 * The release's answers with the fields added since (issue 37, teams) as its data reads in them
 * now: no key or audit event belongs to a team, no team was charged, and each key's windows are its
 * one window as `spendWindow` showed it (none without a limit).
 */
function withFieldsAddedSince(answers: Record<string, unknown>): Record<string, unknown> {
  const keys = (answers.keys as Json[]).map((key) => ({
    ...key,
    teamId: null,
    spendWindows:
      key.spendPolicy === null
        ? []
        : [{ limitUnits: key.spendPolicy.limitUnits, resetPeriod: key.spendPolicy.resetPeriod, spentUnits: key.spendWindow.spentUnits, startedAt: key.spendWindow.startedAt, resetsAt: key.spendWindow.resetsAt }],
  }));
  const audit = answers.audit as Json;
  return {
    ...answers,
    keys,
    usage: { ...(answers.usage as Json), byTeam: [] },
    audit: { ...audit, data: (audit.data as Json[]).map((event) => ({ ...event, teamId: null })) },
  };
}

/** What each of the release's secrets gets from a model request now: the revoked one is refused. */
async function modelStatuses(at: ScenarioReader, secrets: ScenarioSecrets) {
  const statuses: Record<string, number> = {};
  for (const [role, secret] of Object.entries(secrets)) {
    statuses[role] = (await call(at.baseUrl, "POST", "/v1/responses", { bearer: secret, body: { model: "echo-1", input: "after the upgrade" } })).status;
  }
  return statuses;
}
const EXPECTED_STATUSES = { limited: 200, rotatedOld: 200, rotatedNew: 200, revoked: 401 };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gateway-release-upgrade-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Every table, index and trigger of a SQLite database, as its schema stores them, with runs of white
 * space made one space: the release wrote its statements indented inside TypeScript strings.
 */
function sqliteSchema(dbPath: string) {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return {
      version: db.prepare("PRAGMA user_version").get(),
      objects: db
        .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        .all()
        .map((object) => ({ ...object, sql: String(object.sql).replace(/\s+/g, " ") })),
    };
  } finally {
    db.close();
  }
}

test("a SQLite database of the release upgrades in place: the same answers, its secrets as they were, the schema of a new database", async () => {
  const dbPath = join(dir, "gateway.db");
  copyFileSync(join(FIXTURE, "sqlite.db"), dbPath);
  copyFileSync(join(FIXTURE, "sqlite.db.key"), `${dbPath}.key`);
  const { secrets, answers } = recorded("sqlite.json");

  const upgraded = await startTestGateway({ dbPath, clock: createTestClock(SCENARIO_START).now });
  try {
    expect(await readScenario(upgraded)).toEqual(withFieldsAddedSince(answers));
    expect(await modelStatuses(upgraded, secrets)).toEqual(EXPECTED_STATUSES);
  } finally {
    await upgraded.stop();
  }

  const freshPath = join(dir, "fresh.db");
  const fresh = await startTestGateway({ dbPath: freshPath });
  await fresh.stop();
  const schema = sqliteSchema(dbPath);
  expect(schema.version).toEqual({ user_version: SQLITE_SCHEMA_VERSION });
  expect(schema).toEqual(sqliteSchema(freshPath));
});

let server: TestPostgres | undefined;
afterAll(async () => {
  await server?.stop();
});

/**
 * The schema of a PostgreSQL database as pg_dump writes it (tables, indexes, functions, triggers),
 * without the indentation of each line: the release's function bodies were indented inside TypeScript strings.
 */
function postgresSchema(url: string): string {
  const dump = execFileSync(join(findPostgresBinaries()!, "pg_dump"), ["--schema-only", "--no-owner", "--no-privileges", "--dbname", url], { encoding: "utf8" });
  // The dump's \restrict guard carries a random token per run.
  return dump.replace(/^\\(un)?restrict .*$/gm, "").replace(/^[ \t]+/gm, "");
}

testWithPostgres("a PostgreSQL database of the release upgrades in place: the same answers, its secrets as they were, the schema of a new database", async () => {
  server = await testPostgres();
  const url = await server.createDatabase();
  execFileSync(join(findPostgresBinaries()!, "psql"), ["--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--dbname", url, "--file", join(FIXTURE, "postgres.sql")], { stdio: "pipe" });
  const { secrets, answers, encryptionKey } = recorded("postgres.json");

  const upgraded = await startGateway({
    databaseUrl: url,
    encryptionKey: Buffer.from(encryptionKey!, "hex"),
    port: 0,
    clock: createTestClock(SCENARIO_START).now,
    bootstrap: { ownerId: "test-owner" },
  });
  try {
    const at = { baseUrl: upgraded.url, provisioningKey: upgraded.provisioningKey! };
    expect(await readScenario(at)).toEqual(withFieldsAddedSince(answers));
    expect(await modelStatuses(at, secrets)).toEqual(EXPECTED_STATUSES);
  } finally {
    await upgraded.close();
  }

  const freshUrl = await server.createDatabase();
  await (await openPostgresStore(freshUrl)).close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const versions = await client.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
    expect(versions.rows.map((row) => row.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => index + 1));
  } finally {
    await client.end();
  }
  expect(postgresSchema(url)).toEqual(postgresSchema(freshUrl));
});
