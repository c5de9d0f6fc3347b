import { ApiKey, ApiKeyWithSecret, keyKindOf, ListPage, hintOf } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

const fullBody = {
  name: "ci deploys",
  spendPolicy: { limitUnits: "12.5", currency: "unit" },
  loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 7 },
  modelPolicy: { mode: "all", modelIds: [] },
};

describe("create", () => {
  test("answers 201 with the key record and a one-time secret of the regular kind", async () => {
    const created = await account.create(fullBody);
    expect(created.status).toBe(201);
    const key = ApiKeyWithSecret.strict().parse(created.body);
    expect(keyKindOf(key.secret)).toBe("regular");
    expect(key).toMatchObject({
      object: "api_key",
      ownerId: gateway.ownerId,
      name: "ci deploys",
      state: "active",
      version: 1,
      hint: hintOf(key.secret),
      spendPolicy: { limitUnits: "12.5", currency: "unit" },
      loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 7 },
      modelPolicy: { mode: "all", modelIds: [] },
      spentUnits: "0",
      rotatedAt: null,
      revokedAt: null,
    });
    expect(key.keyId).toMatch(/^key_[0-9A-Za-z]{20}$/);
  });

  test("fills in defaults for policies left out: no spend cap, no content logging for 30 days, all models", async () => {
    const created = await account.create({ name: "minimal" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      spendPolicy: null,
      loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 },
      modelPolicy: { mode: "all", modelIds: [] },
    });
  });

  test("creates a disabled key when asked (extension), whose secret then answers 403 key_disabled", async () => {
    const created = await account.create({ name: "born disabled", state: "disabled" });
    expect(created.body).toMatchObject({ state: "disabled", version: 1 });
    const answer = await respond(gateway, created.body.secret);
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 403, code: "key_disabled" });
  });

  test("issues a secret that authenticates on the model endpoint at once", async () => {
    const created = await account.create({ name: "usable" });
    const answer = await respond(gateway, created.body.secret);
    expect(answer.status).toBe(200);
  });
});

describe("read", () => {
  test("GET of one key returns its record without any secret", async () => {
    const created = await account.create(fullBody);
    const read = await account.get(created.body.keyId);
    expect(read.status).toBe(200);
    const { secret, ...record } = created.body;
    expect(read.body).toEqual(record);
    expect(read.text).not.toContain(secret);
    expect(ApiKey.strict().parse(read.body)).toBeTruthy();
  });

  test("the list holds the owner's keys in creation order, in the list envelope", async () => {
    const first = await account.create({ name: "list-a" });
    const second = await account.create({ name: "list-b" });
    const listed = await account.listAll();
    const ids = listed.map((key) => key.keyId);
    expect(ids.indexOf(first.body.keyId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.body.keyId)).toBe(ids.indexOf(first.body.keyId) + 1);
    const page = await account.list("?limit=1");
    expect(ListPage(ApiKey.strict()).strict().parse(page.body)).toMatchObject({ object: "list", has_more: true });
    expect(typeof page.body.next_cursor).toBe("string");
  });

  test("the list never shows a secret", async () => {
    const created = await account.create({ name: "no-secret-in-list" });
    const page = await account.list("?limit=100");
    expect(page.text).not.toContain(created.body.secret);
    expect(page.text).not.toContain('"secret"');
  });
});

describe("change", () => {
  test("PATCH replaces the given fields, keeps the others and raises the version by one", async () => {
    const created = await account.create(fullBody);
    const patched = await account.patch(created.body.keyId, {
      expectedVersion: 1,
      name: "renamed",
      spendPolicy: { limitUnits: "99" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "renamed",
      version: 2,
      spendPolicy: { limitUnits: "99", currency: "unit" },
      loggingPolicy: fullBody.loggingPolicy,
      state: "active",
    });
    expect(patched.body).not.toHaveProperty("secret");
    expect((await account.get(created.body.keyId)).body).toEqual(patched.body);
  });

  test("PATCH with spendPolicy null removes the cap", async () => {
    const created = await account.create(fullBody);
    const patched = await account.patch(created.body.keyId, { expectedVersion: 1, spendPolicy: null });
    expect(patched.body.spendPolicy).toBeNull();
  });

  test("PATCH moves a key to disabled and back to active", async () => {
    const created = await account.create({ name: "toggle" });
    const disabled = await account.patch(created.body.keyId, { expectedVersion: 1, state: "disabled" });
    expect(disabled.body).toMatchObject({ state: "disabled", version: 2 });
    const enabled = await account.patch(created.body.keyId, { expectedVersion: 2, state: "active" });
    expect(enabled.body).toMatchObject({ state: "active", version: 3 });
  });
});

describe("rotate", () => {
  test("answers the record with a new secret, a new hint and version + 1", async () => {
    const created = await account.create({ name: "rotating" });
    const rotated = await account.rotate(created.body.keyId, { expectedVersion: 1 });
    expect(rotated.status).toBe(200);
    const key = ApiKeyWithSecret.strict().parse(rotated.body);
    expect(key.secret).not.toBe(created.body.secret);
    expect(keyKindOf(key.secret)).toBe("regular");
    expect(key).toMatchObject({ keyId: created.body.keyId, version: 2, hint: hintOf(key.secret), state: "active" });
    expect(key.rotatedAt).not.toBeNull();
  });

  test("the old secret stops authenticating immediately and the new one works", async () => {
    const created = await account.create({ name: "rotating-auth" });
    const rotated = await account.rotate(created.body.keyId, { expectedVersion: 1 });
    expect((await respond(gateway, created.body.secret)).status).toBe(401);
    expect((await respond(gateway, rotated.body.secret)).status).toBe(200);
  });
});

describe("revoke", () => {
  test("answers the record in state revoked with version + 1 and no secret", async () => {
    const created = await account.create({ name: "revoking" });
    const revoked = await account.revoke(created.body.keyId, { expectedVersion: 1 });
    expect(revoked.status).toBe(200);
    expect(ApiKey.strict().parse(revoked.body)).toMatchObject({ state: "revoked", version: 2 });
    expect(revoked.body.revokedAt).not.toBeNull();
  });

  test("a revoked key no longer authenticates on the model endpoint", async () => {
    const created = await account.create({ name: "revoked-auth" });
    await account.revoke(created.body.keyId, { expectedVersion: 1 });
    const answer = await respond(gateway, created.body.secret);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe("invalid_credentials");
  });
});

describe("whoami", () => {
  test("names the owner, scopes and hint of the calling provisioning key", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/account/whoami", { bearer: gateway.provisioningKey });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      object: "provisioning_key",
      ownerId: gateway.ownerId,
      scopes: ["keys:read", "keys:write", "usage:read"],
      hint: hintOf(gateway.provisioningKey),
    });
  });
});
