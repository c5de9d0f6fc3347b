/**
 * What each resource method puts on the wire: method, path (encoded), query, headers, body, and
 * which credential goes where.
 */
import { GatewayClient, GatewayError, InvalidArgumentError, outputText } from "@gateway-keys/sdk";
import { API_KEY, JSON_HEADERS, keyRecord, mockGateway, NEW_SECRET, ORIGIN, PROVISIONING_KEY } from "./support/mock-gateway";
import { MockAgent } from "./support/undici";

const list = (data: unknown[] = []) => ({ object: "list", data, has_more: false, next_cursor: null });
const answer = {
  id: "resp_1",
  object: "response",
  created_at: 1_900_000_000,
  status: "completed",
  model: "echo-1",
  output: [{ type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "pong", annotations: [], logprobs: [] }] }],
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  error: null,
  tools: [],
  tool_choice: "auto",
  parallel_tool_calls: true,
  metadata: {},
  temperature: null,
  top_p: null,
  usage: {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  },
};

describe("requests on the wire", () => {
  test("create posts the JSON body with the provisioning key as a bearer token", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys", method: "POST" }).reply(201, { ...keyRecord(), secret: NEW_SECRET }, { headers: JSON_HEADERS });
    const body = { name: "ci", spendPolicy: { limitUnits: "100" } };

    const key = await client.apiKeys.create(body);

    expect(key.secret).toBe(NEW_SECRET);
    const [request] = sent();
    expect(request).toMatchObject({ method: "POST", path: "/v1/account/api-keys" });
    expect(request!.headers).toMatchObject({ authorization: `Bearer ${PROVISIONING_KEY}`, "content-type": "application/json", accept: "application/json" });
    expect(JSON.parse(request!.body!)).toEqual(body);
    await done();
  });

  test("encodes the keyId in update, rotate and revoke paths", async () => {
    const { pool, client, sent, done } = mockGateway();
    const id = "key/../x y";
    const encoded = encodeURIComponent(id);
    pool.intercept({ path: `/v1/account/api-keys/${encoded}`, method: "PATCH" }).reply(200, keyRecord(), { headers: JSON_HEADERS });
    pool.intercept({ path: `/v1/account/api-keys/${encoded}/rotate`, method: "POST" }).reply(200, { ...keyRecord(), secret: NEW_SECRET }, { headers: JSON_HEADERS });
    pool.intercept({ path: `/v1/account/api-keys/${encoded}/revoke`, method: "POST" }).reply(200, keyRecord({ state: "revoked" }), { headers: JSON_HEADERS });

    await client.apiKeys.update(id, { expectedVersion: 1, state: "disabled" });
    await client.apiKeys.rotate(id, { expectedVersion: 2 });
    await client.apiKeys.revoke(id, { expectedVersion: 3 });

    expect(sent().map((r) => [r.method, r.path, JSON.parse(r.body!)])).toEqual([
      ["PATCH", `/v1/account/api-keys/${encoded}`, { expectedVersion: 1, state: "disabled" }],
      ["POST", `/v1/account/api-keys/${encoded}/rotate`, { expectedVersion: 2 }],
      ["POST", `/v1/account/api-keys/${encoded}/revoke`, { expectedVersion: 3 }],
    ]);
    await done();
  });

  test("list sends limit and after as query parameters", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys?limit=5&after=cur_9", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });

    await client.apiKeys.list({ limit: 5, after: "cur_9" });

    expect(sent()[0]!.path).toBe("/v1/account/api-keys?limit=5&after=cur_9");
    await done();
  });

  test("usage, metrics and logs are GETs with the provisioning key", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/usage/summary", method: "GET" }).reply(
      200,
      { object: "usage_summary", ownerId: "own_1", requests: 2, spentUnits: "0.5", byKey: [], byModel: [] },
      { headers: JSON_HEADERS },
    );
    pool.intercept({ path: "/v1/account/metrics", method: "GET" }).reply(
      200,
      { object: "metrics", ownerId: "own_1", keys: { active: 1, disabled: 0, revoked: 0 }, requests: { total: 2, succeeded: 2, rejected: 0 }, spentUnits: "0.5" },
      { headers: JSON_HEADERS },
    );
    pool.intercept({ path: "/v1/account/logs?keyId=key_1", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });

    await expect(client.usage.summary()).resolves.toMatchObject({ requests: 2, spentUnits: "0.5" });
    await expect(client.metrics.get()).resolves.toMatchObject({ keys: { active: 1 } });
    await expect(client.logs.list({ keyId: "key_1" })).resolves.toMatchObject({ data: [] });

    expect(sent().map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ["GET", "/v1/account/usage/summary", `Bearer ${PROVISIONING_KEY}`],
      ["GET", "/v1/account/metrics", `Bearer ${PROVISIONING_KEY}`],
      ["GET", "/v1/account/logs?keyId=key_1", `Bearer ${PROVISIONING_KEY}`],
    ]);
    await done();
  });

  test("responses.create sends the call's regular key, not the provisioning key", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/responses", method: "POST" }).reply(200, answer, { headers: JSON_HEADERS });

    const response = await client.responses.create({ model: "echo-1", input: "ping" }, { apiKey: API_KEY });

    expect(outputText(response)).toBe("pong");
    expect(sent()[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(sent()[0]!.body!)).toEqual({ model: "echo-1", input: "ping" });
    await done();
  });

  test("startups and models send no credentials when the client has no regular key", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/startups", method: "GET" }).reply(
      200,
      { object: "gateway_info", name: "gw", version: "0.1.0", apiVersion: "v1", extensions: ["single_key_get"] },
      { headers: JSON_HEADERS },
    );
    pool.intercept({ path: "/v1/models", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });

    await expect(client.startups()).resolves.toMatchObject({ apiVersion: "v1" });
    await expect(client.models.list()).resolves.toMatchObject({ data: [] });

    expect(sent().map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    await done();
  });

  test("models sends the client's regular key when it has one", async () => {
    const { pool, client, sent, done } = mockGateway({ apiKey: API_KEY });
    pool.intercept({ path: "/v1/models", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });

    await client.models.list();

    expect(sent()[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    await done();
  });

  test("keeps a path prefix of the base URL", async () => {
    const agent = new MockAgent({ enableCallHistory: true });
    agent.disableNetConnect();
    agent.get(ORIGIN).intercept({ path: "/gw/v1/account/api-keys", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });
    const client = new GatewayClient({ baseUrl: `${ORIGIN}/gw/`, provisioningKey: PROVISIONING_KEY, dispatcher: agent });

    await client.apiKeys.list();

    expect(agent.getCallHistory()?.calls().map((c) => c.path)).toEqual(["/gw/v1/account/api-keys"]);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  test("an account call without a provisioning key fails with missing_credentials before sending", async () => {
    const { client, sent, done } = mockGateway({ provisioningKey: undefined });

    await expect(client.apiKeys.list()).rejects.toMatchObject({ constructor: GatewayError, code: "missing_credentials" });
    expect(sent()).toHaveLength(0);
    await done();
  });

  test("responses.create without any regular key fails with missing_credentials before sending", async () => {
    const { client, sent, done } = mockGateway();

    await expect(client.responses.create({ model: "echo-1", input: "x" })).rejects.toMatchObject({ code: "missing_credentials" });
    expect(sent()).toHaveLength(0);
    await done();
  });

  test("responses.create with stream: true rejects with InvalidArgumentError before sending", async () => {
    const { client, sent, done } = mockGateway();
    const body = { model: "echo-1", input: "x", stream: true } as unknown as Parameters<typeof client.responses.create>[0];

    await expect(client.responses.create(body, { apiKey: API_KEY })).rejects.toMatchObject({ constructor: InvalidArgumentError, code: "invalid_argument" });
    expect(sent()).toHaveLength(0);
    await done();
  });

  test("responses.create sends instructions, a message array and max_output_tokens as given", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/responses", method: "POST" }).reply(200, answer, { headers: JSON_HEADERS });
    const body = { model: "echo-1", instructions: "be brief", input: [{ role: "user" as const, content: "ping" }], max_output_tokens: 8 };

    await client.responses.create(body, { apiKey: API_KEY });

    expect(JSON.parse(sent()[0]!.body!)).toEqual(body);
    await done();
  });

  test("an empty keyId rejects with InvalidArgumentError before sending", async () => {
    const { client, sent, done } = mockGateway();

    await expect(client.apiKeys.rotate("", { expectedVersion: 1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(client.apiKeys.get("")).rejects.toMatchObject({ code: "invalid_argument" });
    expect(sent()).toHaveLength(0);
    await done();
  });

  test("a base URL that is not http(s) is refused by the constructor", () => {
    expect(() => new GatewayClient({ baseUrl: "ftp://gateway.test" })).toThrow(InvalidArgumentError);
  });

  test("close() leaves an injected dispatcher in place and open for its owner", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/models", method: "GET" }).reply(200, list(), { headers: JSON_HEADERS });

    await client.close();
    await client.models.list();

    // The call after close() still went through the MockAgent (a real agent would fail to resolve gateway.test).
    expect(sent().map((r) => r.path)).toEqual(["/v1/models"]);
    await done();
  });
});
