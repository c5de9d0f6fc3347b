/**
 * `gateway keys rotate` run as a process against a running gateway: the dry run's table, the
 * rotation's secrets file (mode 0600, the only place a secret goes), a cut-off run finished with
 * its Idempotency-Key without rotating twice, and the refusals that keep an operator safe.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { randomUUID } from "node:crypto";
import type { ApiKeyWithSecret, AuditEvent, ListPage } from "@gateway-keys/contract";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway((started, client) => {
  gateway = started;
  account = client;
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "keys-rotate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command (never synchronously: the gateway answers from this process). */
async function gatewayCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [GATEWAY_CLI, "keys", "rotate", ...args], {
      env: { PATH: process.env.PATH!, GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey, ...env },
      encoding: "utf8",
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function team(size: number): Promise<{ label: string; keys: ApiKeyWithSecret[] }> {
  const name = `cli${randomUUID().slice(0, 8)}`;
  const keys = await Promise.all(Array.from({ length: size }, (_, i) => gateway.createRegularKey({ name: `${name}-${i}`, labels: { team: name } })));
  return { label: `team=${name}`, keys };
}

const rotateEvents = async (keyId: string) =>
  (await call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", `/v1/account/audit-events?keyId=${keyId}&action=rotate`, { bearer: gateway.provisioningKey })).body.data;

/** Every secret the gateway knows of, to look for in output. */
const noSecretIn = (text: string, secrets: string[]) => {
  for (const secret of [...secrets, gateway.provisioningKey]) expect(text).not.toContain(secret);
};

test("--dry-run prints the selected keys with their use and changes nothing", async () => {
  const { label, keys } = await team(2);
  expect((await respond(gateway, keys[0]!.secret)).status).toBe(200);
  const run = await gatewayCli(["--label", label, "--dry-run"]);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`Keys selected by ${label}: 2 (dry run; no grace: each replaced secret stops at once)`);
  for (const key of keys) expect(run.stdout).toMatch(new RegExp(`${key.keyId}\\s+${key.name}\\s+active\\s+1\\s+planned`));
  expect(run.stdout).toMatch(/ago \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
  noSecretIn(run.stdout + run.stderr, keys.map((key) => key.secret));
  for (const key of keys) expect((await account.get(key.keyId)).body.version).toBe(1);

  const json = await gatewayCli(["--label", label, "--dry-run", "--output", "json"]);
  expect(JSON.parse(json.stdout)).toMatchObject({ object: "bulk_rotation", dryRun: true, keys: keys.map(() => expect.objectContaining({ outcome: "planned" })) });
});

test("rotates with --yes, writes the new secrets only to a 0600 file, and a rerun with the printed Idempotency-Key rotates nothing again", async () => {
  const { label, keys } = await team(3);
  const file = join(dir, "secrets.json");
  const run = await gatewayCli(["--label", label, "--yes", "--grace", "1h", "--secrets-file", file]);
  expect(run.code).toBe(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const written = JSON.parse(readFileSync(file, "utf8")) as { requestId: string; keys: { keyId: string; secret: string; previousSecretExpiresAt: string }[] };
  expect(written.keys.map((key) => key.keyId).sort()).toEqual(keys.map((key) => key.keyId).sort());
  for (const key of written.keys) {
    expect((await respond(gateway, key.secret)).status).toBe(200);
    expect(key.previousSecretExpiresAt).not.toBeNull();
  }
  for (const key of keys) expect((await respond(gateway, key.secret)).status).toBe(200);
  expect(run.stdout).toContain(`Rotated 3 of 3 keys (request ${written.requestId})`);
  noSecretIn(run.stdout + run.stderr, [...keys.map((key) => key.secret), ...written.keys.map((key) => key.secret)]);

  // The run said how to finish it if cut off; doing so replays, whatever the keys' versions are now.
  const idempotencyKey = /--idempotency-key (\S+);/.exec(run.stderr)![1]!;
  const rerunFile = join(dir, "secrets-again.json");
  const rerun = await gatewayCli(["--label", label, "--yes", "--grace", "1h", "--secrets-file", rerunFile, "--idempotency-key", idempotencyKey]);
  expect(rerun.code).toBe(0);
  expect(rerun.stderr).toContain("replayed: this rotation already ran");
  expect(JSON.parse(readFileSync(rerunFile, "utf8"))).toEqual(written);
  for (const key of keys) {
    expect((await account.get(key.keyId)).body.version).toBe(2);
    expect(await rotateEvents(key.keyId)).toHaveLength(1);
  }
});

test("refuses, changing nothing: no secrets file, an existing one, no one to confirm, no provisioning key, a bad duration", async () => {
  const { label, keys } = await team(1);
  const noFile = await gatewayCli(["--label", label, "--yes"]);
  expect(noFile).toMatchObject({ code: 1 });
  expect(noFile.stderr).toContain("give --secrets-file <file>");
  const existing = join(dir, "exists.json");
  writeFileSync(existing, "keep me");
  const exists = await gatewayCli(["--label", label, "--yes", "--secrets-file", existing]);
  expect(exists.code).toBe(1);
  expect(exists.stderr).toContain("it exists");
  expect(readFileSync(existing, "utf8")).toBe("keep me");
  const unconfirmed = await gatewayCli(["--label", label, "--secrets-file", join(dir, "unconfirmed.json")]);
  expect(unconfirmed.code).toBe(1);
  expect(unconfirmed.stderr).toContain("add --yes");
  const anonymous = await gatewayCli(["--label", label, "--dry-run"], { GATEWAY_PROVISIONING_KEY: "" });
  expect(anonymous.code).toBe(1);
  expect(anonymous.stderr).toContain("GATEWAY_PROVISIONING_KEY");
  const badGrace = await gatewayCli(["--label", label, "--dry-run", "--grace", "soon"]);
  expect(badGrace.code).toBe(1);
  expect(badGrace.stderr).toContain("expected a duration such as 90, 45s, 15m, 1h or 7d");
  const refused = await gatewayCli(["--label", label, "--dry-run", "--retire-when-idle", "15m"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("retireWhenIdleSeconds");
  expect((await account.get(keys[0]!.keyId)).body.version).toBe(1);
});
