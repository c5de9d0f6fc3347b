/**
 * The usage timeline (requests and cost per hour or day, by model and status) and each key's
 * lastUsedAt, on this file's store with an injected clock.
 */
import { createTestClock, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, respond, useGateway, type accountClient } from "./helpers";

const clock = createTestClock(Date.UTC(2030, 2, 10, 9, 15));
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  { clock: clock.now, ownerId: "timeline-owner" },
);

const timeline = (query: string) => call(gateway.baseUrl, "GET", `/v1/account/usage/timeline${query}`, { bearer: gateway.provisioningKey });
const one = { model: "echo-1", input: "hello", max_output_tokens: 1 }; // 0.003

test("counts requests and cost per hour by model and status, within whole buckets, and a key's lastUsedAt", async () => {
  clock.set(Date.UTC(2030, 2, 10, 9, 15));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.006" }, modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
  expect(key.lastUsedAt).toBeNull();
  expect((await respond(gateway, key.secret, one)).status).toBe(200);
  clock.set(Date.UTC(2030, 2, 10, 10, 5));
  expect((await respond(gateway, key.secret, one)).status).toBe(200);
  expect((await respond(gateway, key.secret, one)).status).toBe(402);
  expect((await respond(gateway, key.secret, { model: "reverse-1", input: "x" })).status).toBe(403);
  clock.set(Date.UTC(2030, 2, 10, 10, 30));

  const answer = await timeline(`?bucket=hour&keyId=${key.keyId}`);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    object: "usage_timeline",
    bucket: "hour",
    since: "2030-03-09T11:00:00.000Z",
    until: "2030-03-10T11:00:00.000Z",
    data: [
      { startedAt: "2030-03-10T09:00:00.000Z", model: "echo-1", status: 200, requests: 1, costUnits: "0.003" },
      { startedAt: "2030-03-10T10:00:00.000Z", model: "echo-1", status: 200, requests: 1, costUnits: "0.003" },
      { startedAt: "2030-03-10T10:00:00.000Z", model: "echo-1", status: 402, requests: 1, costUnits: "0" },
      { startedAt: "2030-03-10T10:00:00.000Z", model: "reverse-1", status: 403, requests: 1, costUnits: "0" },
    ],
  });
  const days = await timeline(`?bucket=day&keyId=${key.keyId}`);
  expect(days.body.data).toEqual([
    { startedAt: "2030-03-10T00:00:00.000Z", model: "echo-1", status: 200, requests: 2, costUnits: "0.006" },
    { startedAt: "2030-03-10T00:00:00.000Z", model: "echo-1", status: 402, requests: 1, costUnits: "0" },
    { startedAt: "2030-03-10T00:00:00.000Z", model: "reverse-1", status: 403, requests: 1, costUnits: "0" },
  ]);
  // A span of one's own choosing, cut to whole buckets.
  const morning = await timeline(`?bucket=hour&keyId=${key.keyId}&since=2030-03-10T09:30:00Z&until=2030-03-10T09:59:00Z`);
  expect(morning.body).toMatchObject({ since: "2030-03-10T09:00:00.000Z", until: "2030-03-10T10:00:00.000Z" });
  expect(morning.body.data).toHaveLength(1);

  expect((await account.get(key.keyId)).body.lastUsedAt).toBe("2030-03-10T10:05:00.000Z");
});

test("refuses a span that is too long or backwards, an unknown bucket, and another owner's key, by name", async () => {
  expect(expectError(await timeline("?bucket=hour&since=2030-01-01T00:00:00Z&until=2030-03-01T00:00:00Z"), 400, "validation_failed").param).toBe("since");
  expect(expectError(await timeline("?since=2030-03-02T00:00:00Z&until=2030-03-01T00:00:00Z"), 400, "validation_failed").param).toBe("since");
  expect(expectError(await timeline("?bucket=week"), 400, "validation_failed").param).toBe("bucket");
  expect(expectError(await timeline("?keyId=key_notmine"), 404, "key_not_found").param).toBe("keyId");
  // Another owner's key is as unknown as a key that does not exist.
  const stranger = await gateway.newProvisioningKey("timeline-stranger");
  const theirs = await gateway.createRegularKey({ name: "theirs" }, { provisioningKey: stranger });
  expect(expectError(await timeline(`?keyId=${theirs.keyId}`), 404, "key_not_found").param).toBe("keyId");
});
