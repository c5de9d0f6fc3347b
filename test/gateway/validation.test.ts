/**
 * Every bad input gets its documented 4xx naming the field, and changes nothing: the key list
 * (and the key's record, and the log) read before and after are identical.
 */
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
let keyId: string;
let secret: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  account = accountClient(gateway);
  const key = await gateway.createRegularKey({ name: "subject", spendPolicy: { limitUnits: "5" } });
  keyId = key.keyId;
  secret = key.secret;
});
afterAll(() => gateway.stop());

const valid = { name: "ok" };
const CREATE_CASES: [string, unknown, string | undefined][] = [
  ["name missing", {}, "name"],
  ["name empty", { name: "" }, "name"],
  ["name of 129 characters", { name: "n".repeat(129) }, "name"],
  ["name with a control character", { name: "bell\u0007" }, "name"],
  ["name not a string", { name: 42 }, "name"],
  ["limitUnits zero", { ...valid, spendPolicy: { limitUnits: "0" } }, "spendPolicy.limitUnits"],
  ["limitUnits negative", { ...valid, spendPolicy: { limitUnits: "-1" } }, "spendPolicy.limitUnits"],
  ["limitUnits in exponent form", { ...valid, spendPolicy: { limitUnits: "1e3" } }, "spendPolicy.limitUnits"],
  ["limitUnits with 7 decimals", { ...valid, spendPolicy: { limitUnits: "1.1234567" } }, "spendPolicy.limitUnits"],
  ["limitUnits above 10^12", { ...valid, spendPolicy: { limitUnits: "1000000000000.5" } }, "spendPolicy.limitUnits"],
  ["limitUnits a number", { ...valid, spendPolicy: { limitUnits: 5 } }, "spendPolicy.limitUnits"],
  ["spendPolicy without limitUnits", { ...valid, spendPolicy: {} }, "spendPolicy.limitUnits"],
  ["currency other than unit", { ...valid, spendPolicy: { limitUnits: "5", currency: "RUB" } }, "spendPolicy.currency"],
  ["unknown field in spendPolicy", { ...valid, spendPolicy: { limitUnits: "5", cap: 1 } }, "spendPolicy.cap"],
  ["retentionDays 0", { ...valid, loggingPolicy: { retentionDays: 0 } }, "loggingPolicy.retentionDays"],
  ["retentionDays 366", { ...valid, loggingPolicy: { retentionDays: 366 } }, "loggingPolicy.retentionDays"],
  ["retentionDays fractional", { ...valid, loggingPolicy: { retentionDays: 1.5 } }, "loggingPolicy.retentionDays"],
  ["retentionDays a string", { ...valid, loggingPolicy: { retentionDays: "7" } }, "loggingPolicy.retentionDays"],
  ["storeRequest not a boolean", { ...valid, loggingPolicy: { storeRequest: "yes" } }, "loggingPolicy.storeRequest"],
  ["unknown model mode", { ...valid, modelPolicy: { mode: "some", modelIds: [] } }, "modelPolicy.mode"],
  ["mode all with model ids", { ...valid, modelPolicy: { mode: "all", modelIds: ["echo-1"] } }, "modelPolicy.modelIds"],
  ["allowList without model ids", { ...valid, modelPolicy: { mode: "allowList", modelIds: [] } }, "modelPolicy.modelIds"],
  ["101 model ids", { ...valid, modelPolicy: { mode: "allowList", modelIds: Array.from({ length: 101 }, (_, i) => `m${i}`) } }, "modelPolicy.modelIds"],
  ["a repeated model id", { ...valid, modelPolicy: { mode: "allowList", modelIds: ["echo-1", "echo-1"] } }, "modelPolicy.modelIds"],
  ["an empty model id", { ...valid, modelPolicy: { mode: "allowList", modelIds: [""] } }, "modelPolicy.modelIds[0]"],
  ["state revoked", { ...valid, state: "revoked" }, "state"],
  ["an unknown top-level field", { ...valid, color: "blue" }, "color"],
  ["a secret chosen by the caller", { ...valid, secret: "gwk_mine" }, "secret"],
  ["an array body", [valid], undefined],
];

describe("create", () => {
  test.each(CREATE_CASES)("%s answers 400 validation_failed naming the field and creates nothing", async (_what, body, param) => {
    const before = await account.listAll();
    const error = expectError(await account.create(body), 400, "validation_failed");
    expect(error.param).toBe(param ?? null);
    expect(await account.listAll()).toEqual(before);
  });

  test("the message names every issue, each with its path", async () => {
    const answer = await account.create({ name: "", loggingPolicy: { retentionDays: 0 } });
    const error = expectError(answer, 400, "validation_failed");
    expect(error.message).toContain("name: must not be empty");
    expect(error.message).toContain("loggingPolicy.retentionDays: must be between 1 and 365");
  });

  test("malformed JSON answers 400 invalid_json without echoing the body", async () => {
    const before = await account.listAll();
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: '{"name": "gwk_leaked_in_a_typo',
    });
    expectError(answer, 400, "invalid_json");
    expect(answer.text).not.toContain("gwk_leaked");
    expect(await account.listAll()).toEqual(before);
  });

  test("an empty body answers 400 invalid_json", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: "",
    });
    expectError(answer, 400, "invalid_json");
  });

  test("a body that is not JSON by its Content-Type answers 400 invalid_json naming Content-Type", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: JSON.stringify(valid),
      headers: { "content-type": "text/plain" },
    });
    expect(expectError(answer, 400, "invalid_json").param).toBe("Content-Type");
  });

  test("a body over 64 KiB answers 413 payload_too_large and creates nothing", async () => {
    const before = await account.listAll();
    const answer = await account.create({ name: "big", padding: "x".repeat(64 * 1024) });
    expectError(answer, 413, "payload_too_large");
    expect(await account.listAll()).toEqual(before);
  });

  test("a body just under 64 KiB is read (and judged on its fields)", async () => {
    const body = JSON.stringify({ name: "big", padding: "" });
    const answer = await account.create({ name: "big", padding: "x".repeat(64 * 1024 - body.length) });
    expect(expectError(answer, 400, "validation_failed").param).toBe("padding");
  });
});

const KEY_MUTATIONS: [string, (body: unknown) => ReturnType<typeof account.patch>, unknown, string | undefined][] = [
  ["PATCH without expectedVersion", (b) => account.patch(keyId, b), { name: "x" }, "expectedVersion"],
  ["PATCH with expectedVersion 0", (b) => account.patch(keyId, b), { expectedVersion: 0, name: "x" }, "expectedVersion"],
  ["PATCH with expectedVersion as a string", (b) => account.patch(keyId, b), { expectedVersion: "1", name: "x" }, "expectedVersion"],
  ["PATCH with a fractional expectedVersion", (b) => account.patch(keyId, b), { expectedVersion: 1.5, name: "x" }, "expectedVersion"],
  ["PATCH with nothing to change", (b) => account.patch(keyId, b), { expectedVersion: 1 }, undefined],
  ["PATCH with an empty name", (b) => account.patch(keyId, b), { expectedVersion: 1, name: "" }, "name"],
  ["PATCH with a bad limit", (b) => account.patch(keyId, b), { expectedVersion: 1, spendPolicy: { limitUnits: "0.0000001" } }, "spendPolicy.limitUnits"],
  ["PATCH with an unknown field", (b) => account.patch(keyId, b), { expectedVersion: 1, hint: "x" }, "hint"],
  ["rotate without expectedVersion", (b) => account.rotate(keyId, b), {}, "expectedVersion"],
  ["rotate with an unknown field", (b) => account.rotate(keyId, b), { expectedVersion: 1, secret: "gwk_x" }, "secret"],
  ["revoke without expectedVersion", (b) => account.revoke(keyId, b), {}, "expectedVersion"],
  ["revoke with a negative expectedVersion", (b) => account.revoke(keyId, b), { expectedVersion: -1 }, "expectedVersion"],
];

describe("change, rotate, revoke", () => {
  test.each(KEY_MUTATIONS)("%s answers 400 validation_failed naming the field and changes nothing", async (_what, send, body, param) => {
    const before = await account.listAll();
    const error = expectError(await send(body), 400, "validation_failed");
    expect(error.param).toBe(param ?? null);
    expect(await account.listAll()).toEqual(before);
    expect((await account.get(keyId)).body.version).toBe(1);
  });
});

const RESPONSE_CASES: [string, unknown, string | undefined][] = [
  ["model missing", { input: "x" }, "model"],
  ["model empty", { model: "", input: "x" }, "model"],
  ["input missing", { model: "echo-1" }, "input"],
  ["input not a string", { model: "echo-1", input: ["x"] }, "input[0]"],
  ["input an empty array", { model: "echo-1", input: [] }, "input"],
  ["an input message with an unknown role", { model: "echo-1", input: [{ role: "tool", content: "x" }] }, "input[0].role"],
  ["an input part of a kind no translation carries", { model: "echo-1", input: [{ role: "user", content: [{ type: "input_file", file_id: "file_1" }] }] }, "input[0].content[0].type"],
  ["instructions not a string", { model: "echo-1", input: "x", instructions: 5 }, "instructions"],
  ["max_output_tokens zero", { model: "echo-1", input: "x", max_output_tokens: 0 }, "max_output_tokens"],
  ["max_output_tokens fractional", { model: "echo-1", input: "x", max_output_tokens: 1.5 }, "max_output_tokens"],
  ["max_output_tokens over the model's 4096", { model: "echo-1", input: "x", max_output_tokens: 4097 }, "max_output_tokens"],
  ["stream not a boolean", { model: "echo-1", input: "x", stream: "yes" }, "stream"],
];

describe("POST /v1/responses", () => {
  test.each(RESPONSE_CASES)("%s answers 400 validation_failed naming the field, charges nothing and logs nothing", async (_what, body, param) => {
    const logsBefore = (await account.logs()).body;
    const answer = await call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body });
    expect(expectError(answer, 400, "validation_failed").param).toBe(param ?? null);
    expect((await account.logs()).body).toEqual(logsBefore);
    expect((await account.get(keyId)).body.spentUnits).toBe("0");
  });

  test("a body over 32 MiB answers 413 payload_too_large, charges nothing and logs nothing", async () => {
    const logsBefore = (await account.logs()).body;
    const padding = JSON.stringify({ model: "echo-1", input: "" }).length;
    const body = { model: "echo-1", input: "x".repeat(32 * 1024 * 1024 - padding + 1) };
    expectError(await call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body }), 413, "payload_too_large");
    expect((await account.logs()).body).toEqual(logsBefore);
    expect((await account.get(keyId)).body.spentUnits).toBe("0");
  });
});

const CHAT_CASES: [string, unknown, string, string][] = [
  ["messages missing", { model: "echo-1" }, "messages", "messages: expected an array of messages"],
  ["messages empty", { model: "echo-1", messages: [] }, "messages", "messages: must hold at least one message"],
  ["a message with an unknown role", { model: "echo-1", messages: [{ role: "robot", content: "x" }] }, "messages[0].role", "messages[0].role: expected"],
  ["a legacy function message, which no translation carries", { model: "echo-1", messages: [{ role: "function", name: "f", content: "x" }] }, "messages[0].role", "cannot be translated"],
  [
    "a message field no translation carries",
    { model: "echo-1", messages: [{ role: "user", content: "x" }, { role: "assistant", content: "y", audio: { id: "audio_1" } }, { role: "user", content: "z" }] },
    "messages[1].audio",
    "messages[1].audio: cannot be carried to the built-in model \"echo-1\"",
  ],
  ["max_tokens zero", { model: "echo-1", messages: [{ role: "user", content: "x" }], max_tokens: 0 }, "max_tokens", "max_tokens: must be at least 1"],
  ["n of 2", { model: "echo-1", messages: [{ role: "user", content: "x" }], n: 2 }, "n", "n: only 1 is supported"],
  ["five stop sequences", { model: "echo-1", messages: [{ role: "user", content: "x" }], stop: ["a", "b", "c", "d", "e"] }, "stop", "stop: must hold at most 4 sequences"],
];

describe("POST /v1/chat/completions", () => {
  test.each(CHAT_CASES)("%s answers 400 validation_failed naming the field and saying what is wrong, and charges nothing", async (_what, body, param, says) => {
    const logsBefore = (await account.logs()).body;
    const answer = await call(gateway.baseUrl, "POST", "/v1/chat/completions", { bearer: secret, body });
    const error = expectError(answer, 400, "validation_failed");
    expect(error.param).toBe(param ?? null);
    expect(error.message).toContain(says);
    expect((await account.logs()).body).toEqual(logsBefore);
    expect((await account.get(keyId)).body.spentUnits).toBe("0");
  });
});

describe("routes", () => {
  test.each([
    ["GET", "/v1/nothing"],
    ["DELETE", "/v1/account/api-keys"],
    ["GET", "/"],
    ["POST", "/v1/models"],
  ])("%s %s answers 404 route_not_found in the envelope", async (method, path) => {
    expectError(await call(gateway.baseUrl, method, path), 404, "route_not_found");
  });
});
