/**
 * The SDK against the real gateway over HTTP (real SQLite): every method's happy path and a typed
 * error for each documented failure.
 */
import { withChecksum, type ApiKeyWithSecret } from "@gateway-keys/contract";
import {
  AuthenticationError,
  ConflictError,
  GatewayClient,
  IdempotencyError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  SpendLimitError,
  ValidationError,
  outputText,
} from "@gateway-keys/sdk";
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

let gateway: TestGateway;
let client: GatewayClient;
let owners = 0;

/** A client for a fresh owner, so counts and lists in one test are not disturbed by another. */
async function freshOwner(): Promise<GatewayClient> {
  const provisioningKey = await gateway.newProvisioningKey(`sdk-owner-${++owners}`);
  return new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey, backoff: { baseDelayMs: 5 } });
}

async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

/** echo-1 on "ping", bounded to its one output token: reserves and costs 1 × 0.001 + 1 × 0.002 = 0.003. */
const ping = (key: ApiKeyWithSecret) => client.responses.create({ model: "echo-1", input: "ping", max_output_tokens: 1 }, { apiKey: key.secret });

beforeAll(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey, backoff: { baseDelayMs: 5 } });
});

afterAll(async () => {
  await client.close();
  await gateway.stop();
});

describe("happy paths against the real gateway", () => {
  test("create returns the record with a secret that works on /v1/responses", async () => {
    const key = await client.apiKeys.create({ name: "sdk create", spendPolicy: { limitUnits: "5" } });

    expect(key).toMatchObject({ object: "api_key", name: "sdk create", state: "active", version: 1, spendPolicy: { limitUnits: "5", currency: "unit" } });
    const answer = await ping(key);
    expect(outputText(answer)).toBe("ping");
  });

  test("every key policy round-trips; list narrows by label; spendWindows lists the current window", async () => {
    const owner = await freshOwner();
    const searchKey = await owner.apiKeys.create({
      name: "search",
      spendPolicy: { limitUnits: "5", resetPeriod: "daily" },
      rateLimitPolicy: { tokensPerMinute: 10_000 },
      expiresAt: "2099-01-01T00:00:00Z",
      labels: { team: "search", env: "prod" },
    });
    await owner.apiKeys.create({ name: "billing", labels: { team: "billing" } });
    expect(searchKey).toMatchObject({
      spendPolicy: { limitUnits: "5", currency: "unit", resetPeriod: "daily" },
      rateLimitPolicy: { tokensPerMinute: 10_000 },
      expiresAt: "2099-01-01T00:00:00.000Z",
      expired: false,
      labels: { team: "search", env: "prod" },
      spendWindow: { spentUnits: "0" },
    });
    const labelled = await owner.apiKeys.list({ label: ["team=search", "env"] });
    expect(labelled.data.map((key) => key.name)).toEqual(["search"]);
    const windows = await owner.apiKeys.spendWindows(searchKey.keyId, { limit: 2 });
    expect(windows.data).toEqual([expect.objectContaining({ object: "spend_window", requests: 0, spentUnits: "0", startedAt: searchKey.spendWindow!.startedAt })]);
    await owner.close();
  });

  test("list shows a created key", async () => {
    const owner = await freshOwner();
    const key = await owner.apiKeys.create({ name: "listed" });

    const page = await owner.apiKeys.list();

    expect(page.data.map((k) => k.keyId)).toEqual([key.keyId]);
    expect(page.hasNextPage()).toBe(false);
    await owner.close();
  });

  test("get reads one key as create left it, without its secret", async () => {
    const key = await client.apiKeys.create({ name: "to read" });

    const read = await client.apiKeys.get(key.keyId);

    const { secret: _secret, ...record } = key;
    expect(read).toEqual(record);
    expect(read).not.toHaveProperty("secret");
  });

  test("update changes name and state and bumps the version", async () => {
    const key = await client.apiKeys.create({ name: "before" });

    const updated = await client.apiKeys.update(key.keyId, { expectedVersion: 1, name: "after", state: "disabled" });

    expect(updated).toMatchObject({ keyId: key.keyId, name: "after", state: "disabled", version: 2 });
  });

  test("rotate returns a new working secret and the old one stops working", async () => {
    const key = await client.apiKeys.create({ name: "rotating" });

    const rotated = await client.apiKeys.rotate(key.keyId, { expectedVersion: key.version });

    expect(rotated).toMatchObject({ keyId: key.keyId, version: 2 });
    expect(rotated.secret).not.toBe(key.secret);
    await expect(ping(rotated)).resolves.toMatchObject({ object: "response" });
    await expect(ping(key)).rejects.toMatchObject({ constructor: AuthenticationError, code: "invalid_credentials" });
  });

  test("revoke marks the key revoked and its secret stops working", async () => {
    const key = await client.apiKeys.create({ name: "revoking" });

    const revoked = await client.apiKeys.revoke(key.keyId, { expectedVersion: 1 });

    expect(revoked).toMatchObject({ state: "revoked", version: 2 });
    expect(revoked.revokedAt).not.toBeNull();
    await expect(ping(key)).rejects.toBeInstanceOf(AuthenticationError);
  });

  test("usage, metrics and logs reflect a model request", async () => {
    const owner = await freshOwner();
    const key = await owner.apiKeys.create({ name: "metered", loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 7 } });
    await owner.responses.create({ model: "echo-1", input: "hello" }, { apiKey: key.secret });

    const summary = await owner.usage.summary();
    const metrics = await owner.metrics.get();
    const entries = [];
    for await (const entry of owner.logs.list({ keyId: key.keyId })) entries.push(entry);

    // echo-1 on "hello": 1 input token × 0.001 + 1 output token × 0.002.
    expect(summary).toMatchObject({ object: "usage_summary", requests: 1, spentUnits: "0.003", byKey: [{ keyId: key.keyId, requests: 1, spentUnits: "0.003" }] });
    expect(metrics).toMatchObject({ keys: { active: 1, disabled: 0, revoked: 0 }, requests: { total: 1, succeeded: 1 } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ keyId: key.keyId, model: "echo-1", status: 200, request: { input: "hello" }, response: { text: "hello" } });
    await owner.close();
  });

  test("models lists the built-in models without credentials", async () => {
    const anonymous = new GatewayClient({ baseUrl: gateway.baseUrl });

    const ids = [];
    for await (const model of anonymous.models.list()) ids.push(model.id);

    expect(ids).toEqual(expect.arrayContaining(["echo-1", "reverse-1", "count-1"]));
    await anonymous.close();
  });

  test("whoami names the provisioning key's owner and scopes", async () => {
    await expect(client.whoami()).resolves.toMatchObject({
      object: "provisioning_key",
      ownerId: gateway.ownerId,
      scopes: expect.arrayContaining(["keys:read", "keys:write", "usage:read"]),
    });
  });

  test("startups describes the gateway", async () => {
    await expect(client.startups()).resolves.toMatchObject({ object: "gateway_info", apiVersion: "v1", extensions: expect.arrayContaining(["single_key_get"]) });
  });

  test("responses.create uses the client's own regular key when the call gives none", async () => {
    const key = await client.apiKeys.create({ name: "client key" });
    const keyed = new GatewayClient({ baseUrl: gateway.baseUrl, apiKey: key.secret });

    const answer = await keyed.responses.create({ model: "reverse-1", input: "abc" });

    expect(outputText(answer)).toBe("cba");
    await keyed.close();
  });
});

describe("the client's own agent", () => {
  test("close() releases the connections and a later call opens new ones", async () => {
    const own = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
    await own.apiKeys.list();

    await own.close();

    await expect(own.apiKeys.list()).resolves.toMatchObject({ data: expect.any(Array) });
    await own.close();
  });
});

describe("iteration over many keys", () => {
  test("for await over 250 keys sees each once, in creation order, a page at a time", async () => {
    const owner = await freshOwner();
    const created: string[] = [];
    for (let i = 0; i < 250; i++) created.push((await owner.apiKeys.create({ name: `bulk-${i}` })).keyId);

    const seen: string[] = [];
    for await (const key of owner.apiKeys.list({ limit: 40 })) seen.push(key.keyId);

    expect(seen).toEqual(created);
    expect(new Set(seen).size).toBe(250);
    await owner.close();
  });
});

describe("typed errors from the real gateway", () => {
  test("an invalid field is a ValidationError naming the field in param", async () => {
    const error = await failure(client.apiKeys.create({ name: "bad", spendPolicy: { limitUnits: "0" } }));

    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, code: "validation_failed", param: "spendPolicy.limitUnits" });
  });

  test("an unknown provisioning key is an AuthenticationError", async () => {
    const stranger = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: withChecksum("provisioning", "N0tAKey".padEnd(32, "x")) });

    await expect(stranger.apiKeys.list()).rejects.toMatchObject({ constructor: AuthenticationError, status: 401, code: "invalid_credentials" });
    await stranger.close();
  });

  test("a regular key on the account API is a PermissionError wrong_key_kind", async () => {
    const key = await client.apiKeys.create({ name: "regular" });
    const confused = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: key.secret });

    await expect(confused.apiKeys.list()).rejects.toMatchObject({ constructor: PermissionError, status: 403, code: "wrong_key_kind" });
    await confused.close();
  });

  test("a provisioning key without keys:write is a PermissionError missing_scope", async () => {
    const readOnly = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: await gateway.newProvisioningKey(gateway.ownerId, ["keys:read"]) });

    await expect(readOnly.apiKeys.create({ name: "nope" })).rejects.toMatchObject({ constructor: PermissionError, code: "missing_scope" });
    await readOnly.close();
  });

  test("a model outside the key's allow-list is a PermissionError model_not_allowed", async () => {
    const key = await client.apiKeys.create({ name: "echo only", modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });

    const error = await failure(client.responses.create({ model: "reverse-1", input: "x" }, { apiKey: key.secret }));

    expect(error).toMatchObject({ constructor: PermissionError, code: "model_not_allowed", param: "model" });
  });

  test("a key past its expiresAt is an AuthenticationError key_expired", async () => {
    const key = await client.apiKeys.create({ name: "expiring", expiresAt: new Date(Date.now() + 300).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 350));

    await expect(ping(key)).rejects.toMatchObject({ constructor: AuthenticationError, status: 401, code: "key_expired" });
    expect(await client.apiKeys.get(key.keyId)).toMatchObject({ expired: true });
  });

  test("a key over its requestsPerMinute is a RateLimitError key_rate_limited carrying the wait", async () => {
    const key = await client.apiKeys.create({ name: "one a minute", rateLimitPolicy: { requestsPerMinute: 1 } });
    await ping(key);

    const error = await failure(client.responses.create({ model: "echo-1", input: "ping", max_output_tokens: 1 }, { apiKey: key.secret, maxRetries: 0 }));
    expect(error).toMatchObject({ constructor: RateLimitError, status: 429, code: "key_rate_limited" });
    expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(55_000);
    expect((error as RateLimitError).retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  test("a disabled key is a PermissionError key_disabled", async () => {
    const key = await client.apiKeys.create({ name: "to disable" });
    await client.apiKeys.update(key.keyId, { expectedVersion: 1, state: "disabled" });

    await expect(ping(key)).rejects.toMatchObject({ constructor: PermissionError, code: "key_disabled" });
  });

  test("an unknown keyId is a NotFoundError key_not_found from get and from rotate", async () => {
    await expect(client.apiKeys.get("key_doesnotexist")).rejects.toMatchObject({ constructor: NotFoundError, status: 404, code: "key_not_found" });
    await expect(client.apiKeys.rotate("key_doesnotexist", { expectedVersion: 1 })).rejects.toMatchObject({ constructor: NotFoundError, code: "key_not_found" });
  });

  test("an unknown model is a NotFoundError model_not_found", async () => {
    const key = await client.apiKeys.create({ name: "model typo" });

    await expect(client.responses.create({ model: "no-such-model", input: "x" }, { apiKey: key.secret })).rejects.toMatchObject({
      constructor: NotFoundError,
      code: "model_not_found",
    });
  });

  test("a stale expectedVersion is a ConflictError with currentVersion, and the change is kept", async () => {
    const key = await client.apiKeys.create({ name: "contended" });
    await client.apiKeys.update(key.keyId, { expectedVersion: 1, name: "first writer" });

    const error = await failure(client.apiKeys.update(key.keyId, { expectedVersion: 1, name: "second writer" }));

    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: "conflict", currentVersion: 2 });
    expect((error as Error).message).toBe(`key ${key.keyId} changed since version 1 (now 2): re-read it and retry with expectedVersion 2`);
    await expect(client.apiKeys.get(key.keyId)).resolves.toMatchObject({ name: "first writer", version: 2 });
  });

  test("rotating a revoked key is a ConflictError with code key_revoked", async () => {
    const key = await client.apiKeys.create({ name: "gone" });
    const revoked = await client.apiKeys.revoke(key.keyId, { expectedVersion: 1 });

    const error = await failure(client.apiKeys.rotate(key.keyId, { expectedVersion: revoked.version }));

    expect(error).toMatchObject({ constructor: ConflictError, status: 409, code: "key_revoked" });
  });

  test("reusing an idempotency key for a different create is an IdempotencyError", async () => {
    await client.apiKeys.create({ name: "first body" }, { idempotencyKey: "sdk-reuse-1" });

    const error = await failure(client.apiKeys.create({ name: "second body" }, { idempotencyKey: "sdk-reuse-1" }));

    expect(error).toMatchObject({ constructor: IdempotencyError, status: 422, code: "idempotency_key_reused" });
  });

  test("repeating a create with the same idempotency key replays the original key and secret", async () => {
    const first = await client.apiKeys.create({ name: "once" }, { idempotencyKey: "sdk-repeat-1" });

    const { data: again, response } = await client.apiKeys.create({ name: "once" }, { idempotencyKey: "sdk-repeat-1" }).withResponse();

    expect(again).toEqual(first);
    expect(response.replayed).toBe(true);
  });

  test("a key that has spent its limit gets SpendLimitError", async () => {
    const key = await client.apiKeys.create({ name: "tiny budget", spendPolicy: { limitUnits: "0.01" } });

    let error: unknown;
    let served = 0;
    for (let i = 0; i < 50 && error === undefined; i++) {
      await ping(key).then(() => served++, (e: unknown) => (error = e));
    }

    // 0.01 pays for three pings of 0.003.
    expect(served).toBe(3);
    expect(error).toBeInstanceOf(SpendLimitError);
    expect(error).toMatchObject({ status: 402, code: "spend_limit_reached" });
  });

  test("a body over the gateway's size limit is a PayloadTooLargeError", async () => {
    await expect(client.apiKeys.create({ name: "x".repeat(70_000) })).rejects.toMatchObject({ constructor: PayloadTooLargeError, status: 413 });
  });
});

describe("rate limits against the real gateway", () => {
  let limited: TestGateway;
  beforeAll(async () => {
    // A clock that stands still: no token refills between the calls, however slow the machine.
    limited = await startTestGateway({ storage: "memory", clock: createTestClock().now, rateLimit: { ratePerSecond: 1, burst: 2 } });
  });
  afterAll(() => limited.stop());

  test("a credential over its rate gets RateLimitError with the gateway's Retry-After", async () => {
    const waits: number[] = [];
    const hasty = new GatewayClient({
      baseUrl: limited.baseUrl,
      provisioningKey: limited.provisioningKey,
      maxRetries: 1,
      backoff: { sleep: async (ms) => void waits.push(ms) },
    });
    await hasty.apiKeys.list();
    await hasty.apiKeys.list();

    const error = await failure(hasty.apiKeys.list());

    expect(error).toMatchObject({ constructor: RateLimitError, status: 429, code: "rate_limited", retryAfterMs: 1000 });
    // The one retry waited as long as the gateway asked.
    expect(waits).toEqual([1000]);
    await hasty.close();
  });
});
