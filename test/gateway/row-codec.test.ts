/** A table's codec: the columns each statement lists, the parameters in their order, and rows read back. */
import { column, holds, TableCodec } from "@gateway-keys/gateway/dist/store/row-codec";
import { API_KEYS, REQUEST_LOGS } from "@gateway-keys/gateway/dist/store/tables";

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

test("the request log's columns are the table's, in its order; a key's figures from other tables are read, never written", () => {
  expect(REQUEST_LOGS.columns).toEqual([
    "seq", "id", "owner_id", "key_id", "model", "status", "cost_micros", "created_at", "request_input", "response_text", "dropped_fields",
  ]);
  const readOnly = ["seq", "spent_micros", "last_request_at"];
  const insertOnly = ["id", "owner_id", "created_at", "client_reference"];
  expect(API_KEYS.insertColumns).toEqual(API_KEYS.columns.filter((name) => !readOnly.includes(name)));
  expect(API_KEYS.updateColumns).toEqual(API_KEYS.columns.filter((name) => !readOnly.includes(name) && !insertOnly.includes(name)));
});
