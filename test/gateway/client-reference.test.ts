import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, expectError, useGateway } from "./helpers";

/** Extension `client_reference`: a creator's own name for a key, unique among the owner's live keys. */
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

let counter = 0;
const reference = () => `urn:pulumi:test::project::gateway:ApiKey::key-${++counter}`;

test("stores the reference on the key and shows it in create, get and list", async () => {
  const clientReference = reference();
  const created = await account.create({ name: "ref", clientReference });
  expect(created.status).toBe(201);
  expect(created.body.clientReference).toBe(clientReference);
  expect((await account.get(created.body.keyId)).body.clientReference).toBe(clientReference);
  const listed = (await account.listAll()).find((key) => key.keyId === created.body.keyId);
  expect(listed?.clientReference).toBe(clientReference);
});

test("a key created without one has clientReference null", async () => {
  const created = await account.create({ name: "plain" });
  expect(created.body.clientReference).toBeNull();
});

test("refuses a second live key with the same reference: 409 client_reference_in_use naming the holder, nothing created", async () => {
  const clientReference = reference();
  const first = await account.create({ name: "first", clientReference });
  const before = (await account.listAll()).length;
  const second = await account.create({ name: "second", clientReference });
  const error = expectError(second, 409, "client_reference_in_use");
  expect(error).toMatchObject({ param: "clientReference", keyId: first.body.keyId });
  expect(error.message).toContain(`Key ${first.body.keyId} already holds this clientReference`);
  expect((await account.listAll()).length).toBe(before);
});

test("a disabled key still holds its reference", async () => {
  const clientReference = reference();
  const first = await account.create({ name: "first", clientReference, state: "disabled" });
  expectError(await account.create({ name: "again", clientReference }), 409, "client_reference_in_use");
  expect(first.status).toBe(201);
});

test("a revoked key frees its reference: the next create makes a new key", async () => {
  const clientReference = reference();
  const first = await account.create({ name: "first", clientReference });
  await account.revoke(first.body.keyId, { expectedVersion: 1 });
  const second = await account.create({ name: "second", clientReference });
  expect(second.status).toBe(201);
  expect(second.body.keyId).not.toBe(first.body.keyId);
  expect((await account.get(first.body.keyId)).body.clientReference).toBe(clientReference);
});

test("another owner may use the same reference", async () => {
  const clientReference = reference();
  await account.create({ name: "mine", clientReference });
  const other = accountClient(gateway, await gateway.newProvisioningKey("other-owner"));
  const theirs = await other.create({ name: "theirs", clientReference });
  expect(theirs.status).toBe(201);
});

test("a retry with the same Idempotency-Key replays the first answer, secret included, instead of a 409", async () => {
  const clientReference = reference();
  const first = await account.create({ name: "retried", clientReference }, "ref-retry-1");
  const again = await account.create({ name: "retried", clientReference }, "ref-retry-1");
  expect(again.status).toBe(201);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.body.secret).toBe(first.body.secret);
});

test("of concurrent creates with one reference exactly one succeeds", async () => {
  const clientReference = reference();
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => account.create({ name: `race-${i}`, clientReference })));
  expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
  for (const answer of answers.filter((answer) => answer.status !== 201)) expectError(answer, 409, "client_reference_in_use");
});

test.each([
  ["", "clientReference: expected 1 to 512 visible ASCII characters or spaces"],
  ["x".repeat(513), "clientReference: expected 1 to 512 visible ASCII characters or spaces"],
  ["line\nbreak", "clientReference: expected 1 to 512 visible ASCII characters or spaces"],
  [42, "clientReference: expected 1 to 512 visible ASCII characters or spaces"],
])("refuses clientReference %p with 400 naming the field", async (value, message) => {
  const refused = await account.create({ name: "bad", clientReference: value });
  const error = expectError(refused, 400, "validation_failed");
  expect(error.param).toBe("clientReference");
  expect(error.message).toContain(message);
});
