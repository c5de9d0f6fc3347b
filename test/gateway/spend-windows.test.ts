/**
 * Spend limits that reset on UTC calendar boundaries (spendPolicy.resetPeriod), on this file's
 * store, with an injected clock: a window refuses at its limit and serves again at the boundary
 * with no job run, never overshooting under concurrency; the key record and the window history
 * show what each window spent.
 */
import { createTestClock, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, respond, useGateway, type accountClient } from "./helpers";

const clock = createTestClock(Date.UTC(2030, 0, 31, 23, 59)); // a Thursday, one minute before February
const hello = { model: "echo-1", input: "hello", max_output_tokens: 1 }; // 0.001 + 0.002 = 0.003, exactly its reservation
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  { clock: clock.now },
);

const windowsOf = (keyId: string) =>
  call(gateway.baseUrl, "GET", `/v1/account/api-keys/${keyId}/spend-windows`, { bearer: gateway.provisioningKey });

test("a monthly budget refuses at its limit and serves again at 00:00 UTC on the 1st, with no job run", async () => {
  clock.set(Date.UTC(2030, 0, 31, 23, 59));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.03", resetPeriod: "monthly" } });
  const january = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, hello)));
  expect(january.filter((answer) => answer.status === 200)).toHaveLength(10);
  expect(january.filter((answer) => answer.status === 402)).toHaveLength(54);
  expect((await account.get(key.keyId)).body).toMatchObject({
    spentUnits: "0.03",
    spendPolicy: { limitUnits: "0.03", currency: "unit", resetPeriod: "monthly" },
    spendWindow: { startedAt: "2030-01-01T00:00:00.000Z", resetsAt: "2030-02-01T00:00:00.000Z", spentUnits: "0.03" },
  });

  clock.set(Date.UTC(2030, 1, 1) - 1);
  expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
  clock.set(Date.UTC(2030, 1, 1));
  const february = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, hello)));
  expect(february.filter((answer) => answer.status === 200)).toHaveLength(10);
  expect((await account.get(key.keyId)).body).toMatchObject({
    spentUnits: "0.06",
    spendWindow: { startedAt: "2030-02-01T00:00:00.000Z", resetsAt: "2030-03-01T00:00:00.000Z", spentUnits: "0.03" },
  });

  const history = await windowsOf(key.keyId);
  expect(history.status).toBe(200);
  expect(history.body.data).toEqual([
    { object: "spend_window", startedAt: "2030-02-01T00:00:00.000Z", endsAt: "2030-03-01T00:00:00.000Z", requests: 64, spentUnits: "0.03" },
    { object: "spend_window", startedAt: "2030-01-01T00:00:00.000Z", endsAt: "2030-02-01T00:00:00.000Z", requests: 65, spentUnits: "0.03" },
  ]);
});

test("charges stay in the window their requests began in: the next window starts at zero", async () => {
  clock.set(Date.UTC(2030, 2, 31, 23, 59, 59));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.006", resetPeriod: "daily" } });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  clock.set(Date.UTC(2030, 3, 1));
  const record = (await account.get(key.keyId)).body;
  expect(record.spendWindow).toEqual({ startedAt: "2030-04-01T00:00:00.000Z", resetsAt: "2030-04-02T00:00:00.000Z", spentUnits: "0" });
  expect(record.spentUnits).toBe("0.006");
});

test("daily windows start at 00:00 UTC and weekly ones on Monday", async () => {
  clock.set(Date.UTC(2030, 0, 6, 12)); // Sunday 6 January 2030
  const weekly = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1", resetPeriod: "weekly" } });
  const daily = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1", resetPeriod: "daily" } });
  expect(weekly.spendWindow).toEqual({ startedAt: "2029-12-31T00:00:00.000Z", resetsAt: "2030-01-07T00:00:00.000Z", spentUnits: "0" });
  expect(daily.spendWindow).toEqual({ startedAt: "2030-01-06T00:00:00.000Z", resetsAt: "2030-01-07T00:00:00.000Z", spentUnits: "0" });
  clock.set(Date.UTC(2030, 0, 7));
  expect((await account.get(weekly.keyId)).body.spendWindow).toMatchObject({ startedAt: "2030-01-07T00:00:00.000Z", resetsAt: "2030-01-14T00:00:00.000Z" });
});

test("a lifetime cap (never) is the key's whole life; the window record says it never resets", async () => {
  clock.set(Date.UTC(2030, 4, 1));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.003" } });
  expect(key.spendPolicy).toEqual({ limitUnits: "0.003", currency: "unit", resetPeriod: "never" });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  clock.set(Date.UTC(2031, 4, 1));
  expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
  expect((await account.get(key.keyId)).body.spendWindow).toEqual({ startedAt: "2030-05-01T00:00:00.000Z", resetsAt: null, spentUnits: "0.003" });
});

test("changing the period: the new window counts what the key spent since that window's start, no more, no less", async () => {
  clock.set(Date.UTC(2030, 5, 10, 10));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.006" } });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200); // 10 June
  clock.set(Date.UTC(2030, 5, 11, 10));
  expect((await respond(gateway, key.secret, hello)).status).toBe(200); // 11 June: the lifetime cap is spent
  expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");

  const daily = await account.patch(key.keyId, { expectedVersion: 1, spendPolicy: { limitUnits: "0.006", resetPeriod: "daily" } });
  expect(daily.status).toBe(200);
  // Today's window holds today's request only: one more fits, then the day is spent.
  expect(daily.body.spendWindow).toEqual({ startedAt: "2030-06-11T00:00:00.000Z", resetsAt: "2030-06-12T00:00:00.000Z", spentUnits: "0.003" });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");

  const monthly = await account.patch(key.keyId, { expectedVersion: 2, spendPolicy: { limitUnits: "0.009", resetPeriod: "monthly" } });
  // June holds all three charges: the new limit is spent too.
  expect(monthly.body.spendWindow).toMatchObject({ startedAt: "2030-06-01T00:00:00.000Z", spentUnits: "0.009" });
  expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
});

test("the window history lists the current window before its first request, and rejects a bad limit by name", async () => {
  clock.set(Date.UTC(2030, 6, 15));
  const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1", resetPeriod: "weekly" } });
  expect((await windowsOf(key.keyId)).body.data).toEqual([
    { object: "spend_window", startedAt: "2030-07-15T00:00:00.000Z", endsAt: "2030-07-22T00:00:00.000Z", requests: 0, spentUnits: "0" },
  ]);
  const bad = await call(gateway.baseUrl, "GET", `/v1/account/api-keys/${key.keyId}/spend-windows?limit=0`, { bearer: gateway.provisioningKey });
  expect(expectError(bad, 400, "validation_failed").param).toBe("limit");
});

test("the list shows each key's window as reading the key alone does", async () => {
  clock.set(Date.UTC(2030, 7, 20, 12));
  const daily = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1", resetPeriod: "daily" } });
  const weekly = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1", resetPeriod: "weekly" } });
  const lifetime = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1" } });
  for (const key of [daily, weekly, weekly, lifetime]) expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  clock.set(Date.UTC(2030, 7, 21, 12));
  expect((await respond(gateway, weekly.secret, hello)).status).toBe(200);
  const listed = new Map((await account.listAll()).map((key) => [key.keyId, key.spendWindow]));
  for (const key of [daily, weekly, lifetime]) expect(listed.get(key.keyId)).toEqual((await account.get(key.keyId)).body.spendWindow);
  expect(listed.get(daily.keyId)).toMatchObject({ spentUnits: "0" });
  expect(listed.get(weekly.keyId)).toMatchObject({ spentUnits: "0.009" });
  expect(listed.get(lifetime.keyId)).toMatchObject({ spentUnits: "0.003", resetsAt: null });
});
