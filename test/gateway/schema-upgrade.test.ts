/** A database written before the client_reference and rotation_grace extensions keeps working after the upgrade. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startTestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, respond } from "./helpers";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gateway-upgrade-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Turns a current database back into schema 7, the last one without extension secret_use. */
function downgradeToSchema7(db: DatabaseSync): void {
  // Schema 9 added teams.
  db.exec(`
    DROP TABLE teams;
    DROP TABLE team_spend_days;
    DROP INDEX api_keys_by_team;
    ALTER TABLE api_keys DROP COLUMN team_id;
    ALTER TABLE api_keys DROP COLUMN spend_windows;
    ALTER TABLE request_logs DROP COLUMN team_id;
    ALTER TABLE audit_events DROP COLUMN team_id;
  `);
  db.exec(`
    DROP INDEX api_keys_live_previous_secret;
    DROP TABLE secret_use;
    DROP TABLE secret_clients;
    ALTER TABLE api_keys DROP COLUMN previous_secret;
    ALTER TABLE api_keys DROP COLUMN previous_secret_retired_at;
    ALTER TABLE api_keys DROP COLUMN previous_secret_retired_reason;
    PRAGMA user_version = 7;
  `);
}

/** Turns a current database back into schema 2, the last one without the extensions' columns. */
function downgradeToSchema2(dbPath: string): void {
  const db = new DatabaseSync(dbPath);
  try {
    downgradeToSchema7(db);
    db.exec(`
      ALTER TABLE request_logs DROP COLUMN dropped_fields;
      DROP TABLE audit_events;
      DROP TABLE audit_heads;
      DROP TABLE webhooks;
      DROP TABLE webhook_events;
      DROP TABLE webhook_deliveries;
      DROP TABLE alert_marks;
      ALTER TABLE api_keys DROP COLUMN alerts;
      ALTER TABLE usage_counters DROP COLUMN last_request_at;
      DROP TABLE spend_days;
      ALTER TABLE api_keys DROP COLUMN reset_period;
      ALTER TABLE api_keys DROP COLUMN expires_at;
      ALTER TABLE api_keys DROP COLUMN rate_limits;
      ALTER TABLE api_keys DROP COLUMN labels;
      DROP INDEX api_keys_live_by_reference;
      DROP INDEX api_keys_by_previous_hash;
      ALTER TABLE api_keys DROP COLUMN client_reference;
      ALTER TABLE api_keys DROP COLUMN previous_secret_hash;
      ALTER TABLE api_keys DROP COLUMN previous_secret_expires_at;
      PRAGMA user_version = 2;
    `);
  } finally {
    db.close();
  }
}

test("migrates a schema-2 database: old keys read with null extension fields, authenticate, and rotate with grace", async () => {
  const dbPath = join(dir, "gateway.db");
  const first = await startTestGateway({ dbPath });
  const old = (await accountClient(first).create({ name: "from schema 2" })).body;
  // Spent before the upgrade: 0.003.
  expect((await respond(first, old.secret, { model: "echo-1", input: "hello", max_output_tokens: 1 })).status).toBe(200);
  await first.stop();
  downgradeToSchema2(dbPath);

  const second = await startTestGateway({ dbPath });
  try {
    const account = accountClient(second, first.provisioningKey);
    expect((await account.get(old.keyId)).body).toMatchObject({ clientReference: null, previousSecretExpiresAt: null, version: 1, spentUnits: "0.003" });
    // Schema 4 keeps spend from before it on day 0 (so in lifetime windows only), schema 5 the last request of each key and model.
    const upgraded = new DatabaseSync(dbPath, { readOnly: true });
    expect(upgraded.prepare("SELECT day, requests, spent_micros FROM spend_days WHERE key_id = ?").all(old.keyId)).toEqual([
      { day: 0, requests: 1, spent_micros: 3000 },
    ]);
    expect(upgraded.prepare("SELECT last_request_at IS NOT NULL AS known FROM usage_counters WHERE key_id = ?").get(old.keyId)).toEqual({ known: 1 });
    upgraded.close();
    expect((await respond(second, old.secret)).status).toBe(200);
    const rotated = await account.rotate(old.keyId, { expectedVersion: 1, gracePeriodSeconds: 60 });
    expect(rotated.status).toBe(200);
    expect((await respond(second, old.secret)).status).toBe(200);
    const referenced = await account.create({ name: "new", clientReference: "ref-after-upgrade" });
    expect(referenced.body.clientReference).toBe("ref-after-upgrade");
    const version = new DatabaseSync(dbPath, { readOnly: true });
    expect(version.prepare("PRAGMA user_version").get()).toEqual({ user_version: 9 });
    version.close();
  } finally {
    await second.stop();
  }
});

test("migrates a schema-7 database in place: a grace that already ended is recorded as retired, one still running keeps authenticating", async () => {
  const dbPath = join(dir, "gateway.db");
  const first = await startTestGateway({ dbPath });
  const account = accountClient(first);
  const running = (await account.create({ name: "grace running" })).body;
  const ended = (await account.create({ name: "grace ended" })).body;
  const runningRotated = await account.rotate(running.keyId, { expectedVersion: 1, gracePeriodSeconds: 3600 });
  const endedRotated = await account.rotate(ended.keyId, { expectedVersion: 1, gracePeriodSeconds: 3600 });
  expect([runningRotated.status, endedRotated.status]).toEqual([200, 200]);
  await first.stop();
  const db = new DatabaseSync(dbPath);
  downgradeToSchema7(db);
  // The second key's grace ended an hour ago, before the upgrade.
  db.prepare("UPDATE api_keys SET previous_secret_expires_at = ? WHERE id = ?").run(Date.now() - 3_600_000, ended.keyId);
  db.close();

  const second = await startTestGateway({ dbPath });
  try {
    const upgraded = accountClient(second, first.provisioningKey);
    // A rotation made before the extension has no hint stored for its previous secret: no previousSecret is shown.
    const runningRecord = (await upgraded.get(running.keyId)).body;
    expect(runningRecord).toMatchObject({ version: 2, previousSecret: null, currentSecret: { hint: runningRotated.body.hint, requestsSinceRotation: 0 } });
    expect((await respond(second, running.secret)).status).toBe(200);
    expect((await respond(second, runningRotated.body.secret)).status).toBe(200);
    expect((await respond(second, ended.secret)).status).toBe(401);
    const rows = new DatabaseSync(dbPath, { readOnly: true });
    expect(rows.prepare("SELECT id, previous_secret_retired_reason AS reason FROM api_keys ORDER BY seq").all()).toEqual([
      { id: running.keyId, reason: null },
      { id: ended.keyId, reason: "expired" },
    ]);
    expect(rows.prepare("PRAGMA user_version").get()).toEqual({ user_version: 9 });
    rows.close();
    // Use is tracked from the upgrade on: flushed, the new secret shows its request.
    await second.gateway.app.gateway.flushSecretUse();
    expect((await upgraded.get(running.keyId)).body.currentSecret).toMatchObject({ requestsSinceRotation: 1 });
  } finally {
    await second.stop();
  }
});
