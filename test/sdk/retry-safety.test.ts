/**
 * Retry safety over the wire. A fault-injecting TCP proxy lets a mutation reach the real gateway,
 * waits for the gateway's full answer (so the change is committed), then resets the client's
 * connection instead of forwarding it. The SDK must retry with the same Idempotency-Key and hand
 * the caller the original answer (the secret the gateway stored the first time), and the gateway
 * must hold exactly one result of the operation. 100 rounds per mutation.
 */
import type { ApiKey, ApiKeyWithSecret } from "@gateway-keys/contract";
import { AuthenticationError, GatewayClient } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { FaultProxy, type Exchange, type SeenRequest } from "./support/fault-proxy";

const ROUNDS = 100;

let gateway: TestGateway;
let proxy: FaultProxy;
let owners = 0;

beforeAll(async () => {
  gateway = await startTestGateway();
  proxy = await FaultProxy.start(gateway.baseUrl);
});

afterAll(async () => {
  await proxy.close();
  await gateway.stop();
});

/** A client for a fresh owner that talks through the proxy, with near-zero backoff. */
async function clientThroughProxy(): Promise<GatewayClient> {
  const provisioningKey = await gateway.newProvisioningKey(`sdk-retry-${++owners}`);
  return new GatewayClient({ baseUrl: proxy.url, provisioningKey, backoff: { baseDelayMs: 1, maxDelayMs: 5 } });
}

const is = (method: string, path: string) => (request: SeenRequest) => request.method === method && request.path === path;

/** Exchanges of one logical call: everything the proxy saw after `from` for that request line. */
function exchangesSince(from: number, method: string, path: string): Exchange[] {
  return proxy.exchanges.slice(from).filter((e) => e.request.method === method && e.request.path === path);
}

/** The lost first answer and the delivered replay: same key on the wire, the replay marked as such. */
function expectLostThenReplayed(exchanges: Exchange[]): { lost: Exchange; replay: Exchange } {
  expect(exchanges).toHaveLength(2);
  const [lost, replay] = exchanges as [Exchange, Exchange];
  expect(lost.reset).toBe(true);
  expect(replay.reset).toBe(false);
  expect(replay.request.headers["idempotency-key"]).toBe(lost.request.headers["idempotency-key"]);
  expect(replay.response.headers["idempotent-replayed"]).toBe("true");
  return { lost, replay };
}

async function allKeys(client: GatewayClient): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  for await (const key of client.apiKeys.list({ limit: 100 })) keys.push(key);
  return keys;
}

async function works(client: GatewayClient, secret: string): Promise<boolean> {
  return client.responses.create({ model: "echo-1", input: "ok" }, { apiKey: secret }).then(
    () => true,
    (error: unknown) => {
      if (error instanceof AuthenticationError) return false;
      throw error;
    },
  );
}

describe("retry safety through a connection reset after the gateway committed", () => {
  test("a create whose answer is lost returns the original key and secret, and exactly one key exists", async () => {
    const client = await clientThroughProxy();
    const path = "/v1/account/api-keys";

    for (let round = 0; round < ROUNDS; round++) {
      const from = proxy.exchanges.length;
      proxy.resetAfterResponse(is("POST", path));

      const { data: key, response } = await client.apiKeys.create({ name: `retry-create-${round}` }).withResponse();

      const { lost } = expectLostThenReplayed(exchangesSince(from, "POST", path));
      const original = JSON.parse(lost.response.body) as ApiKeyWithSecret;
      expect(key).toEqual(original);
      expect(response).toMatchObject({ replayed: true, attempts: 2 });
      expect(await works(client, key.secret)).toBe(true);
    }

    const keys = await allKeys(client);
    expect(keys).toHaveLength(ROUNDS);
    expect(keys.map((k) => k.name)).toEqual(Array.from({ length: ROUNDS }, (_, round) => `retry-create-${round}`));
    await client.close();
  });

  test("a rotate whose answer is lost returns the secret the gateway stored, and the key rotated once", async () => {
    const client = await clientThroughProxy();
    const created = await client.apiKeys.create({ name: "retry-rotate" });
    let current: ApiKeyWithSecret = created;

    for (let round = 0; round < ROUNDS; round++) {
      const path = `/v1/account/api-keys/${created.keyId}/rotate`;
      const from = proxy.exchanges.length;
      proxy.resetAfterResponse(is("POST", path));

      const { data: rotated, response } = await client.apiKeys.rotate(created.keyId, { expectedVersion: current.version }).withResponse();

      const { lost } = expectLostThenReplayed(exchangesSince(from, "POST", path));
      expect(rotated).toEqual(JSON.parse(lost.response.body));
      expect(response).toMatchObject({ replayed: true, attempts: 2 });
      // One rotation per call: the version moved by exactly one, and only the new secret works.
      expect(rotated.version).toBe(current.version + 1);
      expect(await works(client, rotated.secret)).toBe(true);
      expect(await works(client, current.secret)).toBe(false);
      current = rotated;
    }

    const keys = await allKeys(client);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ keyId: created.keyId, version: 1 + ROUNDS });
    await client.close();
  });

  test("a revoke whose answer is lost returns the revoked record, and the key was revoked once", async () => {
    const client = await clientThroughProxy();
    const created: ApiKeyWithSecret[] = [];
    for (let round = 0; round < ROUNDS; round++) created.push(await client.apiKeys.create({ name: `retry-revoke-${round}` }));

    for (const key of created) {
      const path = `/v1/account/api-keys/${key.keyId}/revoke`;
      const from = proxy.exchanges.length;
      proxy.resetAfterResponse(is("POST", path));

      const { data: revoked, response } = await client.apiKeys.revoke(key.keyId, { expectedVersion: key.version }).withResponse();

      const { lost } = expectLostThenReplayed(exchangesSince(from, "POST", path));
      expect(revoked).toEqual(JSON.parse(lost.response.body));
      expect(response).toMatchObject({ replayed: true, attempts: 2 });
      // Not a second revoke (which would be 409 key_revoked) but the first one's answer, once.
      expect(revoked).toMatchObject({ state: "revoked", version: key.version + 1 });
      expect(await works(client, key.secret)).toBe(false);
    }

    const keys = await allKeys(client);
    expect(keys).toHaveLength(ROUNDS);
    expect(keys.every((k) => k.state === "revoked" && k.version === 2)).toBe(true);
    await client.close();
  });

  test("a GET whose answer is lost is simply asked again", async () => {
    const client = await clientThroughProxy();
    await client.apiKeys.create({ name: "listed" });
    const from = proxy.exchanges.length;
    proxy.resetAfterResponse(is("GET", "/v1/account/api-keys"));

    const { data: page, response } = await client.apiKeys.list().withResponse();

    expect(page.data.map((k) => k.name)).toEqual(["listed"]);
    expect(response.attempts).toBe(2);
    expect(exchangesSince(from, "GET", "/v1/account/api-keys").map((e) => e.reset)).toEqual([true, false]);
    await client.close();
  });

  test("with retries off, a lost create answer surfaces as ConnectionError naming the idempotency key to repeat", async () => {
    const client = await clientThroughProxy();
    const path = "/v1/account/api-keys";
    proxy.resetAfterResponse(is("POST", path));

    const error = await client.apiKeys.create({ name: "no-retry" }, { maxRetries: 0, idempotencyKey: "sdk-lost-1" }).then(
      () => null,
      (e: unknown) => e,
    );

    expect(error).toMatchObject({ code: "connection_error" });
    expect((error as Error).message).toContain("repeat the call with idempotencyKey sdk-lost-1");
    // Repeating by hand with that key returns the key the lost answer held.
    const lost = JSON.parse(proxy.exchanges.at(-1)!.response.body) as ApiKeyWithSecret;
    const repeated = await client.apiKeys.create({ name: "no-retry" }, { idempotencyKey: "sdk-lost-1" });
    expect(repeated).toEqual(lost);
    await client.close();
  });
});
