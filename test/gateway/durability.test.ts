/** Restarts on the same database file lose no acknowledged write: after a clean stop and after SIGKILL. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GATEWAY_CLI, startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, expectError, respond } from "./helpers";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gateway-durability-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a clean restart", () => {
  test("keeps every key, version, state, secret change, spend and stored reply", async () => {
    const dbPath = join(dir, "gateway.db");
    const first = await startTestGateway({ dbPath });
    const account = accountClient(first);
    // The limit covers the reservation of two requests without an output bound (8.193 each).
    const kept = await account.create({ name: "kept", spendPolicy: { limitUnits: "17" } }, "restart-create");
    const rotated = await account.create({ name: "rotated" });
    const newSecret = (await account.rotate(rotated.body.keyId, { expectedVersion: 1 })).body.secret;
    const revoked = await account.create({ name: "revoked" });
    await account.revoke(revoked.body.keyId, { expectedVersion: 1 });
    await respond(first, kept.body.secret);
    // Each secret's use reaches the database on the tracker's interval (and at a clean stop): added
    // now, so `before` is the record as stored.
    await first.gateway.app.gateway.flushSecretUse();
    const before = await account.listAll();
    await first.stop();

    const second = await startTestGateway({ dbPath });
    try {
      // The first gateway's provisioning key still works: the key itself was persisted.
      const again = accountClient(second, first.provisioningKey);
      expect(await again.listAll()).toEqual(before);
      expect(before.find((key) => key.keyId === kept.body.keyId)!.spentUnits).toBe("0.003");
      expect((await respond(second, kept.body.secret)).status).toBe(200);
      expect((await respond(second, newSecret)).status).toBe(200);
      expect((await respond(second, rotated.body.secret)).status).toBe(401);
      expect((await respond(second, revoked.body.secret)).status).toBe(401);
      const replay = await again.create({ name: "kept", spendPolicy: { limitUnits: "17" } }, "restart-create");
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body.secret).toBe(kept.body.secret);
    } finally {
      await second.stop();
    }
  });
});

/** Minimal fixture-like view of a CLI server for the helpers. */
const asGateway = (server: GatewayProcess, provisioningKey: string) => ({ baseUrl: server.url, provisioningKey }) as TestGateway;

describe("the CLI server", () => {
  test("killed with SIGKILL under load loses no acknowledged write", async () => {
    const dbPath = join(dir, "killed.db");
    const first = await startGatewayProcess({ dbPath, bootstrap: { ownerId: "kill-test" } });
    const provisioningKey = first.provisioningKey!;
    const account = accountClient(asGateway(first, provisioningKey));
    const acknowledged = new Map<string, number>();
    const spender = (await account.create({ name: "spender" })).body;
    let spentAcknowledged = 0;

    // Writers keep going until the kill: creates, PATCHes and charged model requests.
    let running = true;
    const writers = [
      ...Array.from({ length: 4 }, async () => {
        while (running) {
          try {
            const created = await account.create({ name: "under load" });
            if (created.status !== 201) continue;
            acknowledged.set(created.body.keyId, 1);
            const patched = await account.patch(created.body.keyId, { expectedVersion: 1, state: "disabled" });
            if (patched.status === 200) acknowledged.set(created.body.keyId, 2);
          } catch {
            // the connection died with the server: that write was never acknowledged
          }
        }
      }),
      (async () => {
        while (running) {
          try {
            const answer = await respond(asGateway(first, provisioningKey), spender.secret);
            if (answer.status === 200) spentAcknowledged++;
          } catch {
            // as above
          }
        }
      })(),
    ];
    while (acknowledged.size < 25) await new Promise((resolvePromise) => setTimeout(resolvePromise, 5));
    first.child.kill("SIGKILL");
    expect((await first.exited()).signal).toBe("SIGKILL");
    running = false;
    await Promise.all(writers);

    const second = await startGatewayProcess({ dbPath });
    try {
      const after = await accountClient(asGateway(second, provisioningKey)).listAll();
      const byId = new Map(after.map((key) => [key.keyId, key]));
      for (const [keyId, version] of acknowledged) {
        expect(byId.get(keyId)?.version ?? 0).toBeGreaterThanOrEqual(version);
      }
      // Metering survives a process kill too (WAL; see docs/operators/storage.md#storage-durability-and-secrets-at-rest).
      const spent = Number(byId.get(spender.keyId)!.spentUnits);
      expect(Math.round(spent * 1e6)).toBeGreaterThanOrEqual(spentAcknowledged * 1100);
      // Reservations of requests killed in flight were released at start-up: the key can spend.
      expect((await respond(asGateway(second, provisioningKey), spender.secret)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  test("stops cleanly on SIGTERM and SIGINT with exit code 0", async () => {
    const dbPath = join(dir, "signals.db");
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const server = await startGatewayProcess({ dbPath });
      server.child.kill(signal);
      expect(await server.exited()).toEqual({ code: 0, signal: null });
    }
  });

  test("provisioning-key create prints one secret that the server accepts", async () => {
    const dbPath = join(dir, "created.db");
    const created = await new Promise<{ code: number | null; out: string }>((resolvePromise) => {
      const child = spawn(process.execPath, [GATEWAY_CLI, "provisioning-key", "create", "--db", dbPath, "--owner", "cli-owner", "--scopes", "keys:read"]);
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.once("exit", (code) => resolvePromise({ code, out }));
    });
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^gwp_[0-9A-Za-z]{38}\n$/);
    const server = await startGatewayProcess({ dbPath });
    try {
      const view = accountClient(asGateway(server, created.out.trim()));
      expect((await view.list()).status).toBe(200);
      expectError(await view.create({ name: "x" }), 403, "missing_scope");
    } finally {
      await server.stop();
    }
  });
});
