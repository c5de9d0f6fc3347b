/** The model endpoint and its policies: models, spend reservation, model allow-list, logging. */
import { GatewayInfo, ListPage, Model, ResponseObject } from "@gateway-keys/contract";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, useGateway } from "./helpers";

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
    expect(response.output[0]!.content[0]!.text).toBe("hello");
    // 0.001 per request + 0.00001 per character of input and output (5 + 5).
    expect(response.usage).toEqual({ inputCharacters: 5, outputCharacters: 5, costUnits: "0.0011" });
    expect(response).toMatchObject({ object: "response", model: "echo-1" });
    expect(response.id).toMatch(/^resp_/);
  });

  test("reverse-1 reverses by characters, so an emoji stays whole and counts once", async () => {
    const key = await gateway.createRegularKey();
    const answer = await respond(gateway, key.secret, { model: "reverse-1", input: "ab🎉" });
    expect(answer.body.output[0].content[0].text).toBe("🎉ba");
    expect(answer.body.usage).toMatchObject({ inputCharacters: 3, outputCharacters: 3 });
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
});

describe("public endpoints", () => {
  test("GET /v1/models lists every model with its prices in the list envelope", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/models");
    const page = ListPage(Model.strict()).strict().parse(answer.body);
    expect(page).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(page.data.map((model) => model.id)).toEqual(["echo-1", "reverse-1", "count-1"]);
    expect(page.data[0]!.pricing).toEqual({ perRequestUnits: "0.001", perCharacterUnits: "0.00001" });
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
  test("a request that would go over the limit answers 402 spend_limit_reached and is not charged", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.0011" } });
    expect((await respond(gateway, key.secret, { model: "echo-1", input: "hello" })).status).toBe(200);
    expectError(await respond(gateway, key.secret, { model: "echo-1", input: "hello" }), 402, "spend_limit_reached");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.0011");
  });

  test("raising the limit with PATCH lets requests through again", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.001" } });
    expectError(await respond(gateway, key.secret), 402, "spend_limit_reached");
    await account.patch(key.keyId, { expectedVersion: 1, spendPolicy: { limitUnits: "1" } });
    expect((await respond(gateway, key.secret)).status).toBe(200);
  });

  test("64 concurrent requests never overshoot the limit: exactly as many succeed as the limit pays for", async () => {
    // Each echo of "hello" costs exactly 0.0011; the limit pays for 10 of them.
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.011" } });
    const answers = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, { model: "echo-1", input: "hello" })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(54);
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.011");
  });

  test("a model whose output is shorter than its bound reserves the bound and is charged the actual cost", async () => {
    // count-1 reserves for 64 output characters; "2 characters, 1 words" is 21.
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "1" } });
    const answer = await respond(gateway, key.secret, { model: "count-1", input: "hi" });
    // 0.0005 + 0.000005 * (2 + 21)
    expect(answer.body.usage.costUnits).toBe("0.000615");
    expect((await account.get(key.keyId)).body.spentUnits).toBe("0.000615");
  });

  test("concurrent requests with a variable-length model stay under the limit", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.005" } });
    const answers = await Promise.all(Array.from({ length: 64 }, () => respond(gateway, key.secret, { model: "count-1", input: "hi" })));
    const succeeded = answers.filter((answer) => answer.status === 200).length;
    expect(succeeded).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 402)).toBe(true);
    const spent = (await account.get(key.keyId)).body.spentUnits;
    expect(Number(spent) * 1e6).toBe(succeeded * 615);
    expect(Number(spent)).toBeLessThanOrEqual(0.005);
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
    await respond(owner, open.secret, { model: "echo-1", input: "hello" }); // 0.0011
    await respond(owner, open.secret, { model: "reverse-1", input: "abc" }); // 0.002 + 6 * 0.00002 = 0.00212
    await respond(owner, narrow.secret, { model: "echo-1", input: "x" }); // 0.001 + 2 * 0.00001 = 0.00102
    await respond(owner, narrow.secret, { model: "reverse-1", input: "x" }); // 403, rejected
    await respond(owner, narrow.secret, { model: "missing-1", input: "x" }); // 404, neither

    const usage = await ownerAccount.usage();
    expect(usage.body).toEqual({
      object: "usage_summary",
      ownerId: "metered",
      requests: 3,
      spentUnits: "0.00424",
      byKey: expect.arrayContaining([
        { keyId: open.keyId, requests: 2, spentUnits: "0.00322" },
        { keyId: narrow.keyId, requests: 1, spentUnits: "0.00102" },
      ]),
      byModel: expect.arrayContaining([
        { model: "echo-1", requests: 2, spentUnits: "0.00212" },
        { model: "reverse-1", requests: 1, spentUnits: "0.00212" },
      ]),
    });
    expect(usage.body.byKey).toHaveLength(2);
    expect(usage.body.byModel).toHaveLength(2);

    const metrics = await ownerAccount.metrics();
    expect(metrics.body).toEqual({
      object: "metrics",
      ownerId: "metered",
      keys: { active: 2, disabled: 1, revoked: 0 },
      requests: { total: 5, succeeded: 3, rejected: 1 },
      spentUnits: "0.00424",
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
        costUnits: "0.00212",
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
