/**
 * The model endpoint and its policies: models, spend reservation, model allow-list, logging. Costs
 * are tokens × the model's price per million (docs/operators/providers/built-in.md#built-in-models): a token is a run of
 * letters or digits, or one other visible character; echo-1 is 0.001 per input and 0.002 per output
 * token, reverse-1 0.002 and 0.004, count-1 0.0005 and 0.001. A request reserves its input tokens
 * plus its bound on output tokens (the model's 4096 unless the request asks for fewer).
 */
import { COST_HEADER, GatewayInfo, ListPage, Model, ResponseObject } from "@gateway-keys/contract";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, responseUsage, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

describe("POST /v1/responses", () => {
  test("echo-1 answers the input at output[0].content[0].text with its exact cost", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "echo-1", input: "hello" });
    expect(answer.status).toBe(200);
    const response = ResponseObject.strict().parse(answer.body);
    expect(response.output[0]).toMatchObject({ type: "message", content: [{ type: "output_text", text: "hello" }] });
    // One input token and one output token: 0.001 + 0.002.
    expect(response.usage).toEqual(responseUsage(1, 1));
    expect(answer.headers.get(COST_HEADER)).toBe("0.003");
    expect(response).toMatchObject({ object: "response", model: "echo-1", status: "completed", incomplete_details: null });
    expect(response.id).toMatch(/^resp_/);
  });

  test("reverse-1 reverses by characters, so an emoji stays whole and is one token", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "reverse-1", input: "ab🎉" });
    expect(answer.body.output[0].content[0].text).toBe("🎉ba");
    // "ab" and "🎉" in, "🎉" and "ba" out: 2 × 0.002 + 2 × 0.004.
    expect(answer.body.usage).toEqual(responseUsage(2, 2));
    expect(answer.headers.get(COST_HEADER)).toBe("0.012");
  });

  test("count-1 counts characters and words", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "count-1", input: "one two  three" });
    expect(answer.body.output[0].content[0].text).toBe("14 characters, 3 words");
  });

  test("the x-api-key header authenticates like Authorization: Bearer", async () => {
    const key = await gateway.createRegularKey();
    const answer = await call(gateway.baseUrl, "POST", "/v1/responses", { apiKey: key.secret, body: { model: "echo-1", input: "x" } });
    expect(answer.status).toBe(200);
  });

  test("an unknown model answers 404 model_not_found naming the field", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "gpt-nothing", input: "x" });
    expect(expectError(answer, 404, "model_not_found").param).toBe("model");
  });

  test("fields the gateway does not honour are ignored, and the answer is charged as without them", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "echo-1", input: "hello", temperature: 1, metadata: { run: "x" }, store: false });
    expect(answer.status).toBe(200);
    expect(answer.body.output[0].content[0].text).toBe("hello");
    expect(answer.headers.get(COST_HEADER)).toBe("0.003");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.003");
  });
});

describe("public endpoints", () => {
  test("GET /v1/models lists every model with its family and prices in the list envelope", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/models");
    const page = ListPage(Model.strict()).strict().parse(answer.body);
    expect(page).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    // Other families' built-in models are listed too; the chat models are exactly these, in this order.
    const chat = page.data.filter((model) => model.family === "chat");
    expect(chat.map(({ id, owned_by, pricing, max_output_tokens }) => ({ id, owned_by, pricing, max_output_tokens }))).toEqual([
      { id: "echo-1", owned_by: "gateway", pricing: { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "2000" }, max_output_tokens: 4096 },
      { id: "reverse-1", owned_by: "gateway", pricing: { input_units_per_million_tokens: "2000", output_units_per_million_tokens: "4000" }, max_output_tokens: 4096 },
      { id: "count-1", owned_by: "gateway", pricing: { input_units_per_million_tokens: "500", output_units_per_million_tokens: "1000" }, max_output_tokens: 4096 },
      { id: "tools-1", owned_by: "gateway", pricing: { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "2000" }, max_output_tokens: 4096 },
    ]);
    expect(new Set(page.data.map((model) => model.id)).size).toBe(page.data.length);
  });

  test("GET /v1/models with an allow-listed key lists only what that key may call", async () => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["reverse-1"] } });
    const answer = await call(gateway.baseUrl, "GET", "/v1/models", { bearer: key.secret });
    expect(answer.body.data.map((model: Model) => model.id)).toEqual(["reverse-1"]);
  });

  test("GET /v1/startups describes the gateway and its extensions", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/startups");
    const info = GatewayInfo.strict().parse(answer.body);
    expect(info).toMatchObject({ object: "gateway_info", name: "gateway-keys", apiVersion: "v1" });
    expect(info.extensions).toEqual(expect.arrayContaining(["single_key_get", "model_allow_list", "whoami", "create_with_state"]));
  });
});

describe("model policy", () => {
  test("an allow-listed key may call the listed models", async () => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
    expect((await respond(gateway, key.secret, { model: "echo-1", input: "x" })).status).toBe(200);
  });

  test("an allow-listed key calling another model answers 403 model_not_allowed", async () => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
    const answer = await respond(gateway, key.secret, { model: "reverse-1", input: "x" });
    expect(expectError(answer, 403, "model_not_allowed").param).toBe("model");
  });
});

describe("spend policy", () => {
  // "hello" with max_output_tokens 1 reserves 1 × 0.001 + 1 × 0.002 = 0.003 and costs exactly that.
  const hello = { model: "echo-1", input: "hello", max_output_tokens: 1 };

  test("a request that would go over the limit answers 402 spend_limit_reached and is not charged", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.005" } });
    expect((await respond(gateway, key.secret, hello)).status).toBe(200);
    expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.003");
  });

  test("a request without a bound on output reserves the model's 4096 output tokens when the key affords them", async () => {
    // 1 × 0.001 + 4096 × 0.002 = 8.193.
    const exact = await gateway.createRegularKey({ spendPolicy: { limitUnits: "8.193" } });
    const answer = await respond(gateway, exact.secret, { model: "echo-1", input: "hello" });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("completed");
    expect((await account.get(exact.keyId)).body.spentUnits).toBe("0.003");
  });

  test("a request without a bound on a key that cannot afford the model's whole output is bounded by what the key affords", async () => {
    // Five input tokens cost 0.005; 0.009 leaves 0.004 for output: two tokens at 0.002.
    const small = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.009" } });
    const answer = await respond(gateway, small.secret, { model: "echo-1", input: "one two three four five" });
    expect(answer.status).toBe(200);
    expect(answer.body.output[0].content[0].text).toBe("one two");
    expect(answer.body).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(answer.body.usage).toEqual(responseUsage(5, 2));
    expect((await account.get(small.keyId)).body.spentUnits).toBe("0.009");
    // Nothing left: not even the input and one output token fit.
    expectError(await respond(gateway, small.secret, { model: "echo-1", input: "one" }), 402, "spend_limit_reached");
    expect((await account.get(small.keyId)).body.spentUnits).toBe("0.009");
  });

  test("a key with limitUnits 1 answers a request that sets no bound, however large the model's", async () => {
    const tiny = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1" } });
    const answer = await respond(gateway, tiny.secret, { model: "echo-1", input: "hello" });
    expect(answer.status).toBe(200);
    expect(answer.body.output[0].content[0].text).toBe("hello");
  });

  test("a request whose input and one output token do not fit is refused 402, and changes nothing", async () => {
    // 1 × 0.001 + 1 × 0.002 = 0.003 > 0.002999.
    const short = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.002999" } });
    const refused = expectError(await respond(gateway, short.secret, { model: "echo-1", input: "hello" }), 402, "spend_limit_reached");
    expect(refused.message).toContain("input and one output token would cost 0.003 units");
    expect((await account.get(short.keyId)).body.spentUnits).toBe("0");
  });

  test("raising the limit with PATCH lets requests through again", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.002" } });
    expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
    await account.patch(key.keyId, { expectedVersion: 1, spendPolicy: { limitUnits: "1" } });
    expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  });

  test("64 concurrent requests never overshoot the limit: exactly as many succeed as the limit pays for", async () => {
    // Each costs exactly its reservation, 0.003; the limit pays for 10 of them.
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.03" } });
    const answers = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, hello)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(54);
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.03");
  });

  test("a model whose output is shorter than its bound reserves the bound and is charged the actual cost", async () => {
    // count-1 on "hi": 1 input token, "2 characters, 1 words" is 5 output tokens, so it costs
    // 0.0005 + 5 × 0.001 = 0.0055 but reserves 0.0005 + 4096 × 0.001 = 4.0965, exactly the limit.
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "4.0965" } });
    const answer = await respond(gateway, key.secret, { model: "count-1", input: "hi", max_output_tokens: 4096 });
    expect(answer.body.output[0].content[0].text).toBe("2 characters, 1 words");
    expect(answer.body.usage).toEqual(responseUsage(1, 5));
    expect(answer.headers.get(COST_HEADER)).toBe("0.0055");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.0055");
    // What is left (4.091) no longer covers the reservation of a request bounded at 4096.
    expectError(await respond(gateway, key.secret, { model: "count-1", input: "hi", max_output_tokens: 4096 }), 402, "spend_limit_reached");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.0055");
  });

  test("concurrent requests with a variable-length model stay under the limit", async () => {
    // Each reserves 0.0005 + 10 × 0.001 = 0.0105 and costs 0.0055: at least 4 and at most 8 fit in 0.05.
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.05" } });
    const body = { model: "count-1", input: "hi", max_output_tokens: 10 };
    const answers = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, body)));
    const succeeded = answers.filter((answer) => answer.status === 200).length;
    expect(succeeded).toBeGreaterThanOrEqual(4);
    expect(succeeded).toBeLessThanOrEqual(8);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 402)).toBe(true);
    const spent = (await account.get(key.keyId)).body.spentUnits;
    expect(Number(spent) * 1e6).toBe(succeeded * 5500);
    expect(Number(spent)).toBeLessThanOrEqual(0.05);
  });
});

describe("usage, metrics and logs", () => {
  let owner: TestGateway;

  beforeAll(async () => {
    owner = await startTestGateway({ storage: "memory", ownerId: "metered" });
  });
  afterAll(() => owner.stop());

  test("usage summary, metrics and logs agree with the requests made", async () => {
    const ownerAccount = accountClient(owner);
    const open = await owner.createRegularKey({ name: "open", loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 } });
    const narrow = await owner.createRegularKey({ name: "narrow", modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
    await owner.createRegularKey({ name: "off", state: "disabled" });
    await respond(owner, open.secret, { model: "echo-1", input: "hello" }); // 1 × 0.001 + 1 × 0.002 = 0.003
    await respond(owner, open.secret, { model: "reverse-1", input: "abc def" }); // 2 × 0.002 + 2 × 0.004 = 0.012
    await respond(owner, narrow.secret, { model: "echo-1", input: "x, y" }); // 3 × 0.001 + 3 × 0.002 = 0.009
    await respond(owner, narrow.secret, { model: "reverse-1", input: "x" }); // 403, rejected
    await respond(owner, narrow.secret, { model: "missing-1", input: "x" }); // 404, neither

    const usage = await ownerAccount.usage();
    expect(usage.body).toEqual({
      object: "usage_summary",
      ownerId: "metered",
      requests: 3,
      spentUnits: "0.024",
      byKey: expect.arrayContaining([
        { keyId: open.keyId, requests: 2, spentUnits: "0.015", expired: false, labels: {} },
        { keyId: narrow.keyId, requests: 1, spentUnits: "0.009", expired: false, labels: {} },
      ]),
      byModel: expect.arrayContaining([
        { model: "echo-1", requests: 2, spentUnits: "0.012" },
        { model: "reverse-1", requests: 1, spentUnits: "0.012" },
      ]),
      byLabel: [],
      byTeam: [],
    });
    expect(usage.body.byKey).toHaveLength(2);
    expect(usage.body.byModel).toHaveLength(2);

    const metrics = await ownerAccount.metrics();
    expect(metrics.body).toEqual({
      object: "metrics",
      ownerId: "metered",
      keys: { active: 2, disabled: 1, revoked: 0 },
      requests: { total: 5, succeeded: 3, rejected: 1 },
      spentUnits: "0.024",
    });

    const logs = await ownerAccount.logs();
    expect(logs.body.data.map((entry: { model: string; status: number }) => [entry.model, entry.status])).toEqual([
      ["missing-1", 404],
      ["reverse-1", 403],
      ["echo-1", 200],
      ["reverse-1", 200],
      ["echo-1", 200],
    ]);
  });

  test("a log row keeps request and response content only when the key's logging policy says so", async () => {
    const ownerAccount = accountClient(owner);
    const variants = [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const;
    for (const [storeRequest, storeResponse] of variants) {
      const key = await owner.createRegularKey({ loggingPolicy: { storeRequest, storeResponse, retentionDays: 30 } });
      await respond(owner, key.secret, { model: "reverse-1", input: "abc" });
      const logs = await ownerAccount.logs(`?keyId=${key.keyId}`);
      expect(logs.body.data).toHaveLength(1);
      expect(logs.body.data[0]).toMatchObject({
        keyId: key.keyId,
        model: "reverse-1",
        status: 200,
        costUnits: "0.006", // 1 × 0.002 + 1 × 0.004
        request: storeRequest ? { input: "abc" } : null,
        response: storeResponse ? { text: "cba" } : null,
      });
    }
  });

  test("logs page newest first with a cursor and no repeats", async () => {
    const ownerAccount = accountClient(owner);
    const key = await owner.createRegularKey();
    for (let i = 0; i < 5; i++) await respond(owner, key.secret, { model: "echo-1", input: `n${i}` });
    const ids: string[] = [];
    let after: string | null = null;
    do {
      const page: any = await ownerAccount.logs(`?keyId=${key.keyId}&limit=2${after ? `&after=${after}` : ""}`);
      ids.push(...page.body.data.map((entry: { id: string }) => entry.id));
      after = page.body.next_cursor;
    } while (after);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    const all = await ownerAccount.logs(`?keyId=${key.keyId}&limit=5`);
    expect(all.body.data.map((entry: { id: string }) => entry.id)).toEqual(ids);
  });
});
