/**
 * Two containers of the gateway's image on one PostgreSQL database (a throw-away server from the
 * machine's binaries, on 127.0.0.1), configured as docs/deployment.md says: the URL in
 * GATEWAY_DATABASE_URL, the encryption key as a mounted file (GATEWAY_ENCRYPTION_KEY_FILE).
 * A key made through one container works through the other, and once revoked through the first it
 * is refused by the second.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresUnavailableReason, startPostgres, type PostgresServer } from "@gateway-keys/testkit/postgres";
import { freePort, gatewayVersion, Podman, readArchive, releaseImage, removeReleasedImage, waitForOk, type ReleasedImage } from "./podman";

let image: ReleasedImage;
let podman: Podman;
let server: PostgresServer;
let databaseUrl: string;
let secretsDir: string;
let tag: string;
let provisioningKey: string;
const gateways: string[] = [];

beforeAll(async () => {
  // Fails, not skips: scripts/setup installs PostgreSQL's binaries.
  const unavailable = postgresUnavailableReason();
  if (unavailable) throw new Error(`the PostgreSQL container tests need PostgreSQL's server binaries: ${unavailable}`);
  image = await releaseImage();
  podman = new Podman();
  podman.run(["load", "--quiet", "--input", image.archive]);
  tag = `localhost/gateway-keys-gateway:${gatewayVersion()}`;
  server = await startPostgres();
  databaseUrl = await server.createDatabase();
  secretsDir = mkdtempSync(join(tmpdir(), "gateway-image-secrets-"));
  const keyFile = join(secretsDir, "encryption-key");
  writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o400 });
  // Readable by the gateway's user only, as a mounted Secret with fsGroup would be. (A bind mount:
  // podman 4's --secret cannot mount into a read-only root filesystem.)
  chownSync(keyFile, 10001, 10001);
});

afterAll(async () => {
  podman?.close();
  await server?.stop();
  if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
  removeReleasedImage(image);
});

/** The flags every container on the database shares: the URL by environment, the key as a secret file readable by the gateway's user. */
const databaseFlags = () => [
  "--network", "host", "--read-only",
  "--env", `GATEWAY_DATABASE_URL=${databaseUrl}`,
  "--volume", `${join(secretsDir, "encryption-key")}:/run/secrets/gateway-encryption-key:ro`,
  "--env", "GATEWAY_ENCRYPTION_KEY_FILE=/run/secrets/gateway-encryption-key",
];

async function startGateway(): Promise<string> {
  const port = await freePort();
  const name = `gateway-pg-${randomUUID().slice(0, 8)}`;
  const healthcheck = readArchive(image.archive).config.config.Healthcheck as { Test: string[] };
  podman.run([
    "run", "--detach", "--name", name, ...databaseFlags(),
    "--env", "GATEWAY_HOST=127.0.0.1", "--env", `GATEWAY_PORT=${port}`, "--env", `GATEWAY_METRICS_PORT=${await freePort()}`,
    "--health-cmd", JSON.stringify(healthcheck.Test.slice(1)),
    tag,
  ]);
  gateways.push(name);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/readyz`, 60_000);
  expect(podman.status(["healthcheck", "run", name])).toBe(0);
  return url;
}

const account = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}/v1/account/api-keys${path}`, {
    method,
    headers: {
      authorization: `Bearer ${provisioningKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": randomUUID() }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const respond = (url: string, secret: string) =>
  fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "echo-1", input: "hello from a container", max_output_tokens: 4 }),
  });

test("a key made through one container is served by the other, and refused by it once revoked through the first", async () => {
  provisioningKey = podman.run(["run", "--rm", ...databaseFlags(), tag, "provisioning-key", "create", "--owner", "acme"]).trim();
  expect(provisioningKey).toMatch(/^gwp_/);
  const [first, second] = await Promise.all([startGateway(), startGateway()]);

  const created = await account(first, "POST", "", { name: "shared key" });
  expect(created.status).toBe(201);
  const key = (await created.json()) as { keyId: string; secret: string; version: number };
  const served = await respond(second, key.secret);
  expect(served.status).toBe(200);
  await served.arrayBuffer();

  const revoked = await account(first, "POST", `/${key.keyId}/revoke`, { expectedVersion: key.version });
  expect(revoked.status).toBe(200);
  const revokedAt = Date.now();
  // The other process learns of the change through PostgreSQL (docs/operators/postgresql.md#postgresql-and-many-processes: within a second).
  let refused = await respond(second, key.secret);
  while (refused.status === 200 && Date.now() - revokedAt < 5000) {
    await refused.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    refused = await respond(second, key.secret);
  }
  console.log(`revoked through the first container; refused by the second after ${Date.now() - revokedAt} ms`);
  const refusal = (await refused.json()) as { error: { code: string; message: string } };
  expect({ status: refused.status, code: refusal.error.code, message: refusal.error.message }).toEqual({
    status: 401,
    code: "invalid_credentials",
    message: "The API key has been revoked.",
  });
  // Both read the same database: the second container sees the key as revoked too.
  const read = await account(second, "GET", `/${key.keyId}`);
  expect(((await read.json()) as { state: string }).state).toBe("revoked");
});

test("both containers drain and exit 0 on SIGTERM", async () => {
  const exits = await Promise.all(gateways.map(async (name) => {
    await podman.runAsync(["kill", "--signal", "TERM", name]);
    return (await podman.runAsync(["wait", name])).trim();
  }));
  expect(exits).toEqual(["0", "0"]);
});
