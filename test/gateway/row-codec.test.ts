/** A table's codec: the columns each statement lists, the parameters in their order, and rows read back. */
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { migrate as migratePostgres } from "@gateway-keys/gateway/dist/store/postgres/migrations";
import { column, holds, TableCodec } from "@gateway-keys/gateway/dist/store/row-codec";
import { migrate as migrateSqlite } from "@gateway-keys/gateway/dist/store/sqlite/migrations";
import { API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS } from "@gateway-keys/gateway/dist/store/tables";
import { testPostgres, type TestPostgres } from "@gateway-keys/testkit/test-gateway";
import { testWith } from "../support/needs";

const testWithPostgres = testWith("postgres");

interface Thing {
  seq: number;
  id: string;
  limitMicros: bigint | null;
  policy: { enabled: boolean; ids: string[] };
  hash: Buffer;
  note?: string | null;
}

const THINGS = new TableCodec<Thing>("things", {
  seq: holds("seq", column.int, "never"),
  id: holds("id", column.text, "insert"),
  limit_micros: holds("limitMicros", column.nullable(column.credits)),
  enabled: holds("policy.enabled", column.flag),
  ids: holds("policy.ids", column.json<string[]>()),
  hash: holds("hash", column.bytes),
  note: holds("note", column.nullable(column.text)),
});

const thing: Thing = { seq: 7, id: "t1", limitMicros: 2n ** 60n, policy: { enabled: true, ids: ["a"] }, hash: Buffer.from([1, 2]) };

test("an insert writes every column the database does not make, an update leaves the insert-only ones, in declared order", () => {
  expect(THINGS.insertColumns).toEqual(["id", "limit_micros", "enabled", "ids", "hash", "note"]);
  expect(THINGS.insertValues(thing)).toEqual(["t1", 2n ** 60n, 1, '["a"]', Buffer.from([1, 2]), null]);
  expect(THINGS.updateColumns).toEqual(["limit_micros", "enabled", "ids", "hash", "note"]);
  expect(THINGS.updateValues({ ...thing, note: "n" })).toEqual([2n ** 60n, 1, '["a"]', Buffer.from([1, 2]), "n"]);
});

test("a row reads back into the entity, nested fields and exact credits included, whether integers come as numbers or bigints", () => {
  const row = { seq: 7n, id: "t1", limit_micros: 2n ** 60n, enabled: 1, ids: '["a"]', hash: new Uint8Array([1, 2]), note: null };
  expect(THINGS.fromRow(row)).toEqual({ ...thing, note: null });
  expect(THINGS.fromRow({ ...row, seq: 7, limit_micros: null, enabled: 0n })).toEqual({ ...thing, limitMicros: null, policy: { enabled: false, ids: ["a"] }, note: null });
});

test("a row as JSON for a PostgreSQL function carries credits as decimal text and bytes as bytea hex", () => {
  expect(THINGS.insertJson(thing)).toEqual({ id: "t1", limit_micros: "1152921504606846976", enabled: 1, ids: '["a"]', hash: "\\x0102", note: null });
});

test("a select list names every column, replacing the ones other tables supply", () => {
  expect(THINGS.selectList("t", { note: "(SELECT 'x')" })).toBe("t.seq, t.id, t.limit_micros, t.enabled, t.ids, t.hash, (SELECT 'x') AS note");
});

/** Columns of `api_keys`' codec that other tables supply. */
const READ_FROM_OTHER_TABLES = ["spent_micros", "last_request_at"];
/** Each codec's columns, less those other tables supply, by table. */
const CODEC_COLUMNS = Object.fromEntries(
  [API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS].map((codec) => [codec.table, codec.columns.filter((name) => !READ_FROM_OTHER_TABLES.includes(name))]),
);
test("a key's figures from other tables are read, never written; its identity is written once", () => {
  const insertOnly = ["id", "owner_id", "created_at", "client_reference"];
  expect(API_KEYS.insertColumns).toEqual(API_KEYS.columns.filter((name) => name !== "seq" && !READ_FROM_OTHER_TABLES.includes(name)));
  expect(API_KEYS.updateColumns).toEqual(API_KEYS.insertColumns.filter((name) => !insertOnly.includes(name)));
});

test("each codec names every column of its SQLite table, in the table's order (a migration that adds one needs its codec line)", () => {
  const db = new DatabaseSync(":memory:");
  try {
    migrateSqlite(db);
    for (const [table, columns] of Object.entries(CODEC_COLUMNS)) {
      const stored = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((row) => row.name);
      expect({ table, columns }).toEqual({ table, columns: stored });
    }
  } finally {
    db.close();
  }
});

let server: TestPostgres | undefined;
afterAll(async () => {
  await server?.stop();
});

testWithPostgres("each codec names every column of its PostgreSQL table, in the table's order", async () => {
  server = await testPostgres();
  const client = new pg.Client({ connectionString: await server.createDatabase() });
  await client.connect();
  try {
    await migratePostgres(client);
    for (const [table, columns] of Object.entries(CODEC_COLUMNS)) {
      const { rows } = await client.query<{ name: string }>(
        "SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
        [table],
      );
      expect({ table, columns }).toEqual({ table, columns: rows.map((row) => row.name) });
    }
  } finally {
    await client.end();
  }
});
