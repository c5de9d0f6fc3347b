/** List calls: awaitable for one page, `for await`-able across pages fetched only when reached. */
import { Page, ResponseValidationError } from "@gateway-keys/sdk";
import { JSON_HEADERS, keyRecord, mockGateway } from "./support/mock-gateway";

const keys = (...ids: string[]) => ids.map((keyId) => keyRecord({ keyId }));
const page = (ids: string[], next: string | null) => ({ object: "list", data: keys(...ids), has_more: next !== null, next_cursor: next });

describe("pagination", () => {
  test("awaiting a list gives the first page with its cursor", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys?limit=2", method: "GET" }).reply(200, page(["a", "b"], "c2"), { headers: JSON_HEADERS });

    const first = await client.apiKeys.list({ limit: 2 });

    expect(first).toBeInstanceOf(Page);
    expect(first.data.map((k) => k.keyId)).toEqual(["a", "b"]);
    expect(first).toMatchObject({ hasMore: true, nextCursor: "c2" });
    expect(first.hasNextPage()).toBe(true);
    expect(sent()).toHaveLength(1);
    await done();
  });

  test("for await yields every item of every page, in order, passing each cursor as after", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys?limit=2", method: "GET" }).reply(200, page(["a", "b"], "c2"), { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/api-keys?limit=2&after=c2", method: "GET" }).reply(200, page(["c", "d"], "c4"), { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/api-keys?limit=2&after=c4", method: "GET" }).reply(200, page(["e"], null), { headers: JSON_HEADERS });

    const seen: string[] = [];
    for await (const key of client.apiKeys.list({ limit: 2 })) seen.push(key.keyId);

    expect(seen).toEqual(["a", "b", "c", "d", "e"]);
    expect(sent().map((r) => r.path)).toEqual([
      "/v1/account/api-keys?limit=2",
      "/v1/account/api-keys?limit=2&after=c2",
      "/v1/account/api-keys?limit=2&after=c4",
    ]);
    await done();
  });

  test("fetches the next page only when the loop reaches it", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys?limit=2", method: "GET" }).reply(200, page(["a", "b"], "c2"), { headers: JSON_HEADERS });

    const seen: string[] = [];
    for await (const key of client.apiKeys.list({ limit: 2 })) {
      seen.push(key.keyId);
      if (key.keyId === "b") break;
    }

    expect(seen).toEqual(["a", "b"]);
    expect(sent()).toHaveLength(1);
    await done();
  });

  test("getNextPage fetches the following page", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys", method: "GET" }).reply(200, page(["a"], "c1"), { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/api-keys?after=c1", method: "GET" }).reply(200, page(["b"], null), { headers: JSON_HEADERS });

    const first = await client.apiKeys.list();
    const second = await first.getNextPage();

    expect(second.data.map((k) => k.keyId)).toEqual(["b"]);
    expect(second.hasNextPage()).toBe(false);
    await done();
  });

  test("stops with invalid_response when the gateway hands back the cursor it was given", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys", method: "GET" }).reply(200, page(["a"], "same"), { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/api-keys?after=same", method: "GET" }).reply(200, page(["b"], "same"), { headers: JSON_HEADERS });

    const seen: string[] = [];
    const error = await (async () => {
      for await (const key of client.apiKeys.list()) seen.push(key.keyId);
    })().then(() => null, (e: unknown) => e);

    expect(seen).toEqual(["a", "b"]);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ path: "next_cursor" });
    await done();
  });

  test("logs.list pages with the same cursor protocol", async () => {
    const { pool, client, done } = mockGateway();
    const entry = (id: string) => ({
      object: "request_log", id, keyId: "key_1", model: "echo-1", status: 200, costUnits: "0.01",
      createdAt: "2025-01-01T00:00:00.000Z", request: null, response: null,
    });
    pool.intercept({ path: "/v1/account/logs?keyId=key_1", method: "GET" })
      .reply(200, { object: "list", data: [entry("l1")], has_more: true, next_cursor: "n1" }, { headers: JSON_HEADERS });
    pool.intercept({ path: "/v1/account/logs?keyId=key_1&after=n1", method: "GET" })
      .reply(200, { object: "list", data: [entry("l2")], has_more: false, next_cursor: null }, { headers: JSON_HEADERS });

    const ids: string[] = [];
    for await (const log of client.logs.list({ keyId: "key_1" })) ids.push(log.id);

    expect(ids).toEqual(["l1", "l2"]);
    await done();
  });
});
