import { ApiKeyWithSecret } from "@gateway-keys/contract";
import { createTestClock } from "@gateway-keys/testkit/test-gateway";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, useGateway } from "./helpers";

/** Extension `rotation_grace`: a rotation may let the replaced secret work a while longer. */
const clock = createTestClock();
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  { clock: clock.now },
);

const HOUR = 3_600_000;

/** A fresh key, and its secret. */
async function newKey(): Promise<ApiKeyWithSecret> {
  const created = await account.create({ name: "grace" });
  expect(created.status).toBe(201);
  return created.body;
}

async function rotate(key: { keyId: string; version: number }, gracePeriodSeconds?: number): Promise<ApiKeyWithSecret> {
  const body = gracePeriodSeconds === undefined ? { expectedVersion: key.version } : { expectedVersion: key.version, gracePeriodSeconds };
  const rotated = await account.rotate(key.keyId, body);
  expect(rotated.status).toBe(200);
  return ApiKeyWithSecret.strict().parse(rotated.body);
}

const statusOf = async (secret: string) => (await respond(gateway, secret)).status;

test("is advertised by GET /v1/startups", async () => {
  const info = await call(gateway.baseUrl, "GET", "/v1/startups");
  expect(info.body.extensions).toEqual(expect.arrayContaining(["rotation_grace", "client_reference"]));
});

test("keeps the replaced secret working until previousSecretExpiresAt, then answers it 401 invalid_credentials", async () => {
  const key = await newKey();
  const rotated = await rotate(key, 3600);
  expect(rotated.previousSecretExpiresAt).toBe(new Date(clock.now().getTime() + HOUR).toISOString());
  expect(await statusOf(key.secret)).toBe(200);
  expect(await statusOf(rotated.secret)).toBe(200);

  clock.advance(HOUR - 1);
  expect(await statusOf(key.secret)).toBe(200);
  clock.advance(1);
  const expired = await respond(gateway, key.secret);
  expectError(expired, 401, "invalid_credentials");
  expect(await statusOf(rotated.secret)).toBe(200);
});

test("without a grace period keeps the seed's behaviour: the old secret stops at once", async () => {
  const key = await newKey();
  const rotated = await rotate(key);
  expect(rotated.previousSecretExpiresAt).toBeNull();
  expectError(await respond(gateway, key.secret), 401, "invalid_credentials");
  expect(await statusOf(rotated.secret)).toBe(200);
});

test("keeps only the secret the last rotation replaced: a second rotation ends the first one's grace", async () => {
  const key = await newKey();
  const first = await rotate(key, 3600);
  const second = await rotate(first, 3600);
  expectError(await respond(gateway, key.secret), 401, "invalid_credentials");
  expect(await statusOf(first.secret)).toBe(200);
  expect(await statusOf(second.secret)).toBe(200);
  // A rotation without grace ends the one that had it.
  const third = await rotate(second);
  expectError(await respond(gateway, second.secret), 401, "invalid_credentials");
  expect(await statusOf(third.secret)).toBe(200);
});

test("revoke ends the current and the previous secret at once, and records when the grace ended", async () => {
  const key = await newKey();
  const rotated = await rotate(key, 3600);
  const revoked = await account.revoke(key.keyId, { expectedVersion: rotated.version });
  expect(revoked.status).toBe(200);
  expect(revoked.body.previousSecretExpiresAt).toBe(clock.now().toISOString());
  expectError(await respond(gateway, key.secret), 401, "invalid_credentials");
  expectError(await respond(gateway, rotated.secret), 401, "invalid_credentials");
});

test("a disabled key refuses both secrets with 403 key_disabled; enabled again within the grace, both work", async () => {
  const key = await newKey();
  const rotated = await rotate(key, 3600);
  const disabled = await account.patch(key.keyId, { expectedVersion: rotated.version, state: "disabled" });
  expect(disabled.status).toBe(200);
  expectError(await respond(gateway, key.secret), 403, "key_disabled");
  expectError(await respond(gateway, rotated.secret), 403, "key_disabled");
  await account.patch(key.keyId, { expectedVersion: disabled.body.version, state: "active" });
  expect(await statusOf(key.secret)).toBe(200);
  expect(await statusOf(rotated.secret)).toBe(200);
});

test("charges requests made with the previous secret to the same key", async () => {
  const key = await newKey();
  await rotate(key, 60);
  expect(await statusOf(key.secret)).toBe(200);
  const read = await account.get(key.keyId);
  expect(read.body.spentUnits).not.toBe("0");
});

test.each([
  [-1, "gracePeriodSeconds: expected whole seconds from 0 to 604800 (7 days)"],
  [604_801, "gracePeriodSeconds: expected whole seconds from 0 to 604800 (7 days)"],
  [1.5, "gracePeriodSeconds: expected whole seconds from 0 to 604800 (7 days)"],
  ["60", "gracePeriodSeconds: expected whole seconds from 0 to 604800 (7 days)"],
])("refuses gracePeriodSeconds %p with 400 naming the field, and rotates nothing", async (value, message) => {
  const key = await newKey();
  const refused = await account.rotate(key.keyId, { expectedVersion: 1, gracePeriodSeconds: value });
  const error = expectError(refused, 400, "validation_failed");
  expect(error.param).toBe("gracePeriodSeconds");
  expect(error.message).toContain(message);
  expect((await account.get(key.keyId)).body).toMatchObject({ version: 1, rotatedAt: null });
});

test("replays a grace rotation retried with the same Idempotency-Key, secret and expiry included", async () => {
  const key = await newKey();
  const first = await account.rotate(key.keyId, { expectedVersion: 1, gracePeriodSeconds: 120 }, "grace-retry-1");
  clock.advance(1000);
  const again = await account.rotate(key.keyId, { expectedVersion: 1, gracePeriodSeconds: 120 }, "grace-retry-1");
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.body).toEqual(first.body);
});
