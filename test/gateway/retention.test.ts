/** Log retention follows each key's loggingPolicy.retentionDays, on the injected clock. */
import { createTestClock, startTestGateway, type TestGateway, type TestClock } from "@gateway-keys/testkit/test-gateway";
import { accountClient, respond } from "./helpers";

const DAY = 24 * 60 * 60 * 1000;
let clock: TestClock;
let gateway: TestGateway;

beforeEach(async () => {
  clock = createTestClock();
  gateway = await startTestGateway({ clock: clock.now, maintenanceIntervalMs: 0 });
});
afterEach(() => gateway.stop());

const logKeys = async () =>
  ((await accountClient(gateway).logs("?limit=100")).body.data as { keyId: string }[]).map((entry) => entry.keyId);

test("a log row is listed until its key's retention has passed, then no more", async () => {
  const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 1 } });
  await respond(gateway, key.secret);
  clock.advance(DAY - 1);
  expect(await logKeys()).toEqual([key.keyId]);
  clock.advance(1);
  expect(await logKeys()).toEqual([]);
});

test("maintenance deletes the rows past retention and keeps those of keys with a longer one", async () => {
  const short = await gateway.createRegularKey({ loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 1 } });
  const long = await gateway.createRegularKey({ loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 7 } });
  await respond(gateway, short.secret);
  await respond(gateway, long.secret);
  expect((await gateway.gateway.app.gateway.runMaintenance()).logs).toBe(0);
  clock.advance(2 * DAY);
  expect((await gateway.gateway.app.gateway.runMaintenance()).logs).toBe(1);
  expect(await logKeys()).toEqual([long.keyId]);
  clock.advance(5 * DAY);
  expect((await gateway.gateway.app.gateway.runMaintenance()).logs).toBe(1);
  expect(await logKeys()).toEqual([]);
});

test("shortening a key's retention applies to rows it already has", async () => {
  const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 30 } });
  await respond(gateway, key.secret);
  clock.advance(3 * DAY);
  expect(await logKeys()).toEqual([key.keyId]);
  await accountClient(gateway).patch(key.keyId, { expectedVersion: 1, loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 2 } });
  expect(await logKeys()).toEqual([]);
  expect((await gateway.gateway.app.gateway.runMaintenance()).logs).toBe(1);
});

test("purged rows no longer count in logs but usage and spend are kept", async () => {
  const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 1 } });
  await respond(gateway, key.secret);
  clock.advance(DAY);
  await gateway.gateway.app.gateway.runMaintenance();
  const usage = await accountClient(gateway).usage();
  // echo-1 on "hello": 1 input token × 0.001 + 1 output token × 0.002.
  expect(usage.body).toMatchObject({ requests: 1, spentUnits: "0.003" });
});

test("the maintenance timer purges on its own", async () => {
  await gateway.stop();
  gateway = await startTestGateway({ clock: clock.now, maintenanceIntervalMs: 20 });
  const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 1 } });
  await respond(gateway, key.secret);
  const rowsLeft = async () =>
    (await gateway.store.listLogs({ ownerId: gateway.ownerId, beforeSeq: Number.MAX_SAFE_INTEGER, limit: 10, now: 0 })).length;
  // Counted before the day passes: after it, the timer may purge before a first count could.
  expect(await rowsLeft()).toBe(1);
  clock.advance(DAY);
  for (let waited = 0; (await rowsLeft()) > 0; waited += 10) {
    if (waited > 2000) throw new Error("the timer did not purge");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await rowsLeft()).toBe(0);
});
