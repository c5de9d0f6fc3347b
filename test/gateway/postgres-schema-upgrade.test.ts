/**
 * A PostgreSQL database written by an older gateway (schema 1: spend summed from usage_counters
 * and spend_reservations) migrates to the running-totals schema with every key's account equal to
 * those sums, and the upgraded store keeps them equal as it reserves and settles.
 */
import pg from "pg";
import { openPostgresStore, type Store } from "@gateway-keys/gateway";
import { migrate, SCHEMA_VERSION } from "@gateway-keys/gateway/dist/store/postgres/migrations";
import { testPostgres, type TestPostgres } from "@gateway-keys/testkit/test-gateway";
import { testWith } from "../support/needs";

const testWithPostgres = testWith("postgres");

let server: TestPostgres | undefined;
afterAll(async () => {
  await server?.stop();
});

testWithPostgres("a schema-1 database migrates to running spend totals that equal the sums they replace", async () => {
  server = await testPostgres();
  const url = await server.createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let store: Store | undefined;
  try {
    await migrate(client, 1);
    const insertKey = (id: string, hash: string) =>
      client.query(
        `INSERT INTO api_keys (id, owner_id, name, state, version, secret_hash, hint, spend_limit_micros, store_request, store_response,
          retention_days, model_mode, model_ids, created_at, updated_at)
        VALUES ($1, 'owner', 'old', 'active', 1, $2, 'x', 1000000, 0, 0, 30, 'all', '[]', 0, 0)`,
        [id, Buffer.from(hash)],
      );
    await insertKey("k_spent", "h1");
    await insertKey("k_fresh", "h2");
    await client.query(
      `INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
      VALUES ('k_spent', 'echo-1', 'owner', 3, 3, 0, 300), ('k_spent', 'echo-2', 'owner', 1, 1, 0, 45)`,
    );
    await client.query(
      `INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
      VALUES ('k_spent', 70, 'old process', now() + interval '1 hour'), ('k_spent', 5, 'old process', now() - interval '1 hour')`,
    );

    await migrate(client);
    const version = await client.query("SELECT MAX(version) AS v FROM schema_migrations");
    expect(version.rows[0].v).toBe(SCHEMA_VERSION);
    const accounts = async () =>
      (await client.query("SELECT key_id, spent_micros::TEXT AS spent, reserved_micros::TEXT AS reserved FROM spend_accounts ORDER BY key_id")).rows;
    // Every row counted, the expired reservation too: it counts until swept, as every reservation does.
    expect(await accounts()).toEqual([
      { key_id: "k_fresh", spent: "0", reserved: "0" },
      { key_id: "k_spent", spent: "345", reserved: "75" },
    ]);
    // Schema 6: spend from before it has no day, so it is kept on day 0, inside a lifetime window.
    const days = await client.query("SELECT key_id, day::TEXT AS day, requests::TEXT AS requests, spent_micros::TEXT AS spent FROM spend_days ORDER BY key_id");
    expect(days.rows).toEqual([{ key_id: "k_spent", day: "0", requests: "4", spent: "345" }]);
    const windows = await client.query("SELECT window_start::TEXT AS start, window_spent_micros::TEXT AS spent FROM spend_accounts WHERE key_id = 'k_spent'");
    expect(windows.rows).toEqual([{ start: "0", spent: "345" }]);

    // The upgraded store: a reservation, its settle, and the sweep keep the totals equal to the sums.
    store = await openPostgresStore(url);
    const reservation = await store.sharedSpend!.reserve("k_spent", 100n, Date.now());
    expect(reservation).toBeDefined();
    await store.sharedSpend!.settle(reservation!, {
      id: "log-1", ownerId: "owner", keyId: "k_spent", model: "echo-1", status: 200, costMicros: 60n, createdAt: Date.now(), requestInput: null, responseText: null, droppedFields: [], teamId: null,
    }, "succeeded");
    await store.purgeExpired(Date.now());
    const sums = async () =>
      (
        await client.query(
          `SELECT 'k_spent' AS key_id, (SELECT SUM(spent_micros) FROM usage_counters WHERE key_id = 'k_spent')::TEXT AS spent,
            (SELECT COALESCE(SUM(micros), 0) FROM spend_reservations WHERE key_id = 'k_spent')::TEXT AS reserved`,
        )
      ).rows[0];
    // The expired reservation swept; the store may hold more for the key's next requests (a holding).
    expect((await accounts())[1]).toEqual(await sums());
    expect((await sums()).spent).toBe("405");
    // Closed, the store gives back what it held: the live reservation of the old process remains.
    await store.close();
    store = undefined;
    expect((await accounts())[1]).toEqual(await sums());
    expect(await sums()).toEqual({ key_id: "k_spent", spent: "405", reserved: "70" });
  } finally {
    await store?.close();
    await client.end();
  }
});

testWithPostgres("a schema-10 database upgrades in place to extension secret_use: a grace that already ended is recorded as retired, a running one is not, and the upgraded store takes a flush", async () => {
  server ??= await testPostgres();
  const url = await server.createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let store: Store | undefined;
  try {
    await migrate(client, 10);
    const insertKey = (id: string, hash: string, previousHash: string, previousExpiresAt: number) =>
      client.query(
        `INSERT INTO api_keys (id, owner_id, name, state, version, secret_hash, hint, spend_limit_micros, store_request, store_response,
          retention_days, model_mode, model_ids, created_at, updated_at, rotated_at, previous_secret_hash, previous_secret_expires_at)
        VALUES ($1, 'owner', 'old', 'active', 2, $2, 'x', NULL, 0, 0, 30, 'all', '[]', 0, 0, 0, $3, $4)`,
        [id, Buffer.from(hash), Buffer.from(previousHash), previousExpiresAt],
      );
    await insertKey("k_ended", "h1", "p1", Date.now() - 60_000);
    await insertKey("k_running", "h2", "p2", Date.now() + 3_600_000);

    await migrate(client);
    const keys = await client.query(
      "SELECT id, version, previous_secret, previous_secret_retired_reason AS reason FROM api_keys ORDER BY id",
    );
    expect(keys.rows).toEqual([
      { id: "k_ended", version: 2, previous_secret: null, reason: "expired" },
      { id: "k_running", version: 2, previous_secret: null, reason: null },
    ]);

    store = await openPostgresStore(url);
    const at = Date.now();
    await store.transaction((tx) =>
      tx.secretUse.merge([
        { keyId: "k_running", secretHash: Buffer.from("h2"), countedFrom: 0, lastUsedAt: at, requests: 2, clients: [{ userAgent: "svc/1", address: "10.0.0.1", firstSeenAt: at, lastSeenAt: at, requests: 2 }] },
      ]),
    );
    const figures = await store.transaction((tx) => tx.secretUse.figuresOf(["k_running"]));
    expect(figures.get("k_running")?.get(Buffer.from("h2").toString("hex"))).toEqual({
      lastUsedAt: at,
      requests: 2,
      clients: [{ userAgent: "svc/1", address: "10.0.0.1", firstSeenAt: at, lastSeenAt: at, requests: 2 }],
    });
  } finally {
    await store?.close();
    await client.end();
  }
});
