/** Optimistic concurrency: expectedVersion, the order of checks, and revoke being terminal. */
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, expectError, respond, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

async function keyAtVersion2() {
  const created = await account.create({ name: "original" });
  const changed = await account.patch(created.body.keyId, { expectedVersion: 1, name: "changed by someone else" });
  expect(changed.body.version).toBe(2);
  return created.body;
}

describe("a stale expectedVersion", () => {
  test("PATCH answers 409 conflict with the current version and keeps the concurrent change", async () => {
    const key = await keyAtVersion2();
    const stale = await account.patch(key.keyId, { expectedVersion: 1, name: "my change" });
    const error = expectError(stale, 409, "conflict");
    expect(error.currentVersion).toBe(2);
    expect(error.param).toBe("expectedVersion");
    expect((await account.get(key.keyId)).body).toMatchObject({ name: "changed by someone else", version: 2 });
  });

  test("rotate answers 409 conflict with the current version and the old secret keeps working", async () => {
    const key = await keyAtVersion2();
    const stale = await account.rotate(key.keyId, { expectedVersion: 1 });
    expect(expectError(stale, 409, "conflict").currentVersion).toBe(2);
    expect(stale.text).not.toContain("gwk_");
    expect((await respond(gateway, key.secret)).status).toBe(200);
    expect((await account.get(key.keyId)).body).toMatchObject({ version: 2, rotatedAt: null });
  });

  test("revoke answers 409 conflict with the current version and the key stays active", async () => {
    const key = await keyAtVersion2();
    const stale = await account.revoke(key.keyId, { expectedVersion: 1 });
    expect(expectError(stale, 409, "conflict").currentVersion).toBe(2);
    expect((await account.get(key.keyId)).body).toMatchObject({ state: "active", version: 2 });
    expect((await respond(gateway, key.secret)).status).toBe(200);
  });

  test("a version from the future is stale too", async () => {
    const created = await account.create({ name: "future" });
    const ahead = await account.patch(created.body.keyId, { expectedVersion: 7, name: "x" });
    expect(expectError(ahead, 409, "conflict").currentVersion).toBe(1);
  });
});

describe("revoke is terminal", () => {
  async function revokedKey() {
    const created = await account.create({ name: "to revoke" });
    const revoked = await account.revoke(created.body.keyId, { expectedVersion: 1 });
    expect(revoked.body).toMatchObject({ state: "revoked", version: 2 });
    return created.body;
  }

  test("PATCH state active on a revoked key answers 409 key_revoked and the key stays revoked", async () => {
    const key = await revokedKey();
    expectError(await account.patch(key.keyId, { expectedVersion: 2, state: "active" }), 409, "key_revoked");
    expect((await account.get(key.keyId)).body).toMatchObject({ state: "revoked", version: 2 });
    expect((await respond(gateway, key.secret)).status).toBe(401);
  });

  test("PATCH state revoked is refused: only the revoke endpoint revokes", async () => {
    const created = await account.create({ name: "patch to revoked" });
    const answer = await account.patch(created.body.keyId, { expectedVersion: 1, state: "revoked" });
    expect(expectError(answer, 400, "validation_failed").param).toBe("state");
  });

  test("rotate on a revoked key answers 409 key_revoked and issues no secret", async () => {
    const key = await revokedKey();
    const answer = await account.rotate(key.keyId, { expectedVersion: 2 });
    expectError(answer, 409, "key_revoked");
    expect(answer.text).not.toContain("gwk_");
    expect((await account.get(key.keyId)).body).toMatchObject({ state: "revoked", version: 2, rotatedAt: null });
  });

  test("revoking twice answers 409 key_revoked the second time", async () => {
    const key = await revokedKey();
    expectError(await account.revoke(key.keyId, { expectedVersion: 2 }), 409, "key_revoked");
  });

  test("key_revoked is answered before a stale version is", async () => {
    const key = await revokedKey();
    const answer = await account.patch(key.keyId, { expectedVersion: 1, name: "x" });
    const error = expectError(answer, 409, "key_revoked");
    expect(error.currentVersion).toBeUndefined();
  });

  test("an unknown key id answers 404 before anything else", async () => {
    const answer = await account.revoke("key_unknown0000000000000", { expectedVersion: 1 });
    expect(expectError(answer, 404, "key_not_found").param).toBe("keyId");
  });
});

describe("concurrent changes", () => {
  test("of 50 concurrent PATCHes with the same version exactly one wins and 49 get 409 conflict", async () => {
    const created = await account.create({ name: "contended" });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => account.patch(created.body.keyId, { expectedVersion: 1, name: `writer ${i}` })),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    const losers = answers.filter((answer) => answer.status === 409);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(49);
    for (const loser of losers) expect(expectError(loser, 409, "conflict").currentVersion).toBe(2);
    const final = await account.get(created.body.keyId);
    expect(final.body).toMatchObject({ version: 2, name: winners[0]!.body.name });
  });

  test("of concurrent rotations with the same version exactly one issues a secret, and it is the one that works", async () => {
    const created = await account.create({ name: "rotated concurrently" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => account.rotate(created.body.keyId, { expectedVersion: 1 })));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(9);
    expect((await respond(gateway, winners[0]!.body.secret)).status).toBe(200);
    expect((await respond(gateway, created.body.secret)).status).toBe(401);
  });
});
