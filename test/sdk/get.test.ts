/**
 * apiKeys.get: the single-key endpoint where the gateway has it, otherwise (remembered per client) a
 * scan of the list; a missing key is NotFoundError key_not_found either way.
 */
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { envelope, JSON_HEADERS, keyRecord, mockGateway, ORIGIN, PROVISIONING_KEY } from "./support/mock-gateway";

const ONE = (id: string) => ({ path: `/v1/account/api-keys/${id}`, method: "GET" }) as const;
const LIST = { path: "/v1/account/api-keys?limit=100", method: "GET" } as const;
const page = (ids: string[], next: string | null = null) => ({
  object: "list",
  data: ids.map((keyId) => keyRecord({ keyId })),
  has_more: next !== null,
  next_cursor: next,
});

describe("apiKeys.get", () => {
  test("reads the key from the single-key endpoint when the gateway has it", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(ONE("key_1")).reply(200, keyRecord({ version: 4 }), { headers: JSON_HEADERS });

    await expect(client.apiKeys.get("key_1")).resolves.toMatchObject({ keyId: "key_1", version: 4 });
    expect(sent().map((r) => r.path)).toEqual(["/v1/account/api-keys/key_1"]);
    await done();
  });

  test("a missing key on the single-key endpoint is NotFoundError key_not_found, with no scan", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(ONE("nope")).reply(404, envelope("key_not_found"), { headers: JSON_HEADERS });

    await expect(client.apiKeys.get("nope")).rejects.toMatchObject({ constructor: NotFoundError, code: "key_not_found" });
    expect(sent()).toHaveLength(1);
    await done();
  });

  test.each([
    ["a 404 route_not_found", 404, envelope("route_not_found")],
    ["a 404 without the envelope", 404, "Not Found"],
    ["a 405 without the envelope", 405, "Method Not Allowed"],
  ] as const)("falls back to scanning the list after %s", async (_label, status, body) => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(ONE("key_3")).reply(status, body);
    pool.intercept(LIST).reply(200, page(["key_1", "key_2"], "c2"), { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/api-keys?limit=100&after=c2", method: "GET" }).reply(200, page(["key_3"]), { headers: JSON_HEADERS });

    await expect(client.apiKeys.get("key_3")).resolves.toMatchObject({ keyId: "key_3" });
    expect(sent().map((r) => r.path)).toEqual([
      "/v1/account/api-keys/key_3",
      "/v1/account/api-keys?limit=100",
      "/v1/account/api-keys?limit=100&after=c2",
    ]);
    await done();
  });

  test("remembers per client that the single-key endpoint is missing", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(ONE("key_1")).reply(404, envelope("route_not_found"));
    pool.intercept(LIST).reply(200, page(["key_1", "key_2"]), { headers: JSON_HEADERS }).times(2);

    await client.apiKeys.get("key_1");
    await client.apiKeys.get("key_2");

    expect(sent().map((r) => r.path)).toEqual([
      "/v1/account/api-keys/key_1",
      "/v1/account/api-keys?limit=100",
      "/v1/account/api-keys?limit=100",
    ]);
    await done();
  });

  test("another client still tries the single-key endpoint first", async () => {
    const { agent, pool, client, done } = mockGateway();
    pool.intercept(ONE("key_1")).reply(404, envelope("route_not_found"));
    pool.intercept(LIST).reply(200, page(["key_1"]), { headers: JSON_HEADERS });
    pool.intercept(ONE("key_1")).reply(200, keyRecord(), { headers: JSON_HEADERS });
    const other = new GatewayClient({ baseUrl: ORIGIN, provisioningKey: PROVISIONING_KEY, dispatcher: agent });

    await client.apiKeys.get("key_1");
    await expect(other.apiKeys.get("key_1")).resolves.toMatchObject({ keyId: "key_1" });

    await done();
  });

  test("a key absent from the scanned list is NotFoundError key_not_found", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(ONE("ghost")).reply(404, envelope("route_not_found"));
    pool.intercept(LIST).reply(200, page(["key_1"]), { headers: JSON_HEADERS });

    const error = await client.apiKeys.get("ghost").then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "key_not_found", type: "not_found_error" });
    expect((error as Error).message).toContain("ghost");
    await done();
  });
});
