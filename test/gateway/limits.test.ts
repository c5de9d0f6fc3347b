/** Per-credential rate limiting with a token bucket on the injected clock. */
import { createTestClock, startTestGateway, type TestClock, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, respond } from "./helpers";

let clock: TestClock;
let gateway: TestGateway;

beforeAll(async () => {
  clock = createTestClock();
  gateway = await startTestGateway({ clock: clock.now, rateLimit: { ratePerSecond: 1, burst: 3 }, storage: "memory" });
});
afterAll(() => gateway.stop());

test("a key over its burst answers 429 rate_limited with Retry-After, and is served again once tokens flow back", async () => {
  const key = await gateway.createRegularKey();
  for (let i = 0; i < 3; i++) expect((await respond(gateway, key.secret)).status).toBe(200);
  const limited = await respond(gateway, key.secret);
  expectError(limited, 429, "rate_limited");
  expect(limited.headers.get("retry-after")).toBe("1");
  clock.advance(1000);
  expect((await respond(gateway, key.secret)).status).toBe(200);
  expectError(await respond(gateway, key.secret), 429, "rate_limited");
});

test("one key's limit does not touch another key", async () => {
  const busy = await gateway.createRegularKey();
  const quiet = await gateway.createRegularKey();
  for (let i = 0; i < 4; i++) await respond(gateway, busy.secret);
  expectError(await respond(gateway, busy.secret), 429, "rate_limited");
  expect((await respond(gateway, quiet.secret)).status).toBe(200);
});

test("a provisioning key has its own bucket on the account API", async () => {
  const provisioningKey = await gateway.newProvisioningKey("limited-owner");
  const list = () => call(gateway.baseUrl, "GET", "/v1/account/api-keys", { bearer: provisioningKey });
  for (let i = 0; i < 3; i++) expect((await list()).status).toBe(200);
  expectError(await list(), 429, "rate_limited");
});

test("anonymous callers are limited per client address", async () => {
  clock.advance(10_000);
  for (let i = 0; i < 3; i++) expect((await call(gateway.baseUrl, "GET", "/v1/models")).status).toBe(200);
  expectError(await call(gateway.baseUrl, "GET", "/v1/startups"), 429, "rate_limited");
});
