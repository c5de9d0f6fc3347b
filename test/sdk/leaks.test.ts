/**
 * No credential or secret ever shows in what the SDK produces: error messages, `String(error)`,
 * `JSON.stringify(error)`, `util.inspect(error)` (which also prints `cause`), or log lines, on every
 * error path, even when the gateway or undici echo a credential back.
 */
import { inspect } from "node:util";
import { withChecksum } from "@gateway-keys/contract";
import { GatewayClient, GatewayError } from "@gateway-keys/sdk";
import { API_KEY, envelope, JSON_HEADERS, keyRecord, mockGateway, NEW_SECRET, ORIGIN, PROVISIONING_KEY } from "./support/mock-gateway";
import { MockAgent } from "./support/undici";

const CREATE = { path: "/v1/account/api-keys", method: "POST" } as const;
const RESPONSES = { path: "/v1/responses", method: "POST" } as const;
const ALL_SECRETS = [PROVISIONING_KEY, API_KEY, NEW_SECRET];
/** A gateway that quotes every credential it saw in its error message: the worst case. */
const ECHO = `provisioning ${PROVISIONING_KEY}, key ${API_KEY}, new secret ${NEW_SECRET}, header Bearer ${PROVISIONING_KEY}`;

async function caught(promise: PromiseLike<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** Every rendering of the error and every log line, checked for every secret. */
function expectNoSecrets(error: GatewayError, logLines: string[], secrets: readonly string[] = ALL_SECRETS): void {
  const renderings = [
    error.message,
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: 10, showHidden: true }),
    error.stack ?? "",
    ...logLines,
  ];
  for (const text of renderings) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe("no secret leaks", () => {
  test.each([400, 401, 402, 403, 404, 409, 413, 422, 429, 500])(
    "a %i whose gateway message quotes every credential shows none of them",
    async (status) => {
      const { pool, client, logLines, done } = mockGateway({ maxRetries: 1 });
      const reply = pool.intercept(RESPONSES).reply(status, envelope("internal_error", ECHO, { param: "input" }), { headers: JSON_HEADERS });
      if (status === 429 || status === 500) reply.times(2);

      const error = await caught(client.responses.create({ model: "echo-1", input: NEW_SECRET }, { apiKey: API_KEY }));

      expect(error).toMatchObject({ status });
      expectNoSecrets(error, logLines);
      await done();
    },
  );

  test("a create answer that breaks the contract names the field but not the secret beside it", async () => {
    const { pool, client, logLines, done } = mockGateway();
    pool.intercept(CREATE).reply(201, { ...keyRecord(), version: "one", secret: NEW_SECRET }, { headers: JSON_HEADERS });

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expect(error).toMatchObject({ code: "invalid_response", path: "version" });
    expectNoSecrets(error, logLines);
    await done();
  });

  test("a secret in the wrong place of a create answer is not quoted", async () => {
    const { pool, client, logLines, done } = mockGateway();
    pool.intercept(CREATE).reply(201, { ...keyRecord(), hint: 42, name: NEW_SECRET, secret: 7 }, { headers: JSON_HEADERS });

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expect(error).toMatchObject({ code: "invalid_response" });
    expectNoSecrets(error, logLines);
    await done();
  });

  test("a connection error whose undici cause quotes the Authorization header shows no credential", async () => {
    const { pool, client, logLines, done } = mockGateway({ maxRetries: 1 });
    // undici's "not matched" error prints the request's headers, bearer token included.
    pool.intercept({ ...CREATE, headers: { authorization: "Bearer someone-else" } }).reply(201, {});

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expect(error).toMatchObject({ code: "connection_error" });
    expect(inspect(error, { depth: 10 })).toContain("UND_MOCK_ERR_MOCK_NOT_MATCHED");
    expectNoSecrets(error, logLines);
    pool.cleanMocks(); // the interceptor above was never meant to match
    await done();
  });

  test("a cause carrying request options keeps only its name, code and scrubbed message", async () => {
    const { pool, client, logLines, done } = mockGateway({ maxRetries: 0 });
    const cause = Object.assign(new Error(`connect failed for ${API_KEY}`), {
      code: "ECONNREFUSED",
      options: { headers: { authorization: `Bearer ${PROVISIONING_KEY}` } },
      socket: { secret: NEW_SECRET },
      cause: Object.assign(new Error(`inner ${NEW_SECRET}`), { request: { headers: { "x-api-key": API_KEY } } }),
    });
    pool.intercept(CREATE).replyWithError(cause);

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expect(error.cause).toMatchObject({ code: "ECONNREFUSED" });
    expect(Object.keys(error.cause as object)).toEqual(["code"]);
    expectNoSecrets(error, logLines);
    await done();
  });

  test("a timeout shows no credential", async () => {
    const { pool, client, logLines, done } = mockGateway({ timeoutMs: 20, maxRetries: 1, apiKey: API_KEY });
    pool.intercept(RESPONSES).reply(200, {}).delay(1_000).times(2);

    const error = await caught(client.responses.create({ model: "echo-1", input: "x" }));

    expect(error).toMatchObject({ code: "timeout" });
    expectNoSecrets(error, logLines);
    await done();
  });

  test("a credential with a trailing newline is refused before sending, without quoting it", async () => {
    const { client, logLines, sent, done } = mockGateway();

    const error = await caught(client.responses.create({ model: "echo-1", input: "x" }, { apiKey: `${API_KEY}\n` }));

    expect(error).toMatchObject({ code: "invalid_argument" });
    expect(sent()).toHaveLength(0);
    expectNoSecrets(error, logLines);
    await done();
  });

  test("credentials in a format the SDK does not recognise are still scrubbed", async () => {
    const provisioningKey = "corp-prov-7f3a9c2e11b04d5e";
    const apiKey = "corp-user-0c9d8e7f6a5b4c3d";
    const agent = new MockAgent();
    agent.disableNetConnect();
    const lines: string[] = [];
    const client = new GatewayClient({
      baseUrl: ORIGIN,
      provisioningKey,
      apiKey,
      dispatcher: agent,
      maxRetries: 1,
      logger: { debug: (m) => lines.push(m), warn: (m) => lines.push(m) },
      backoff: { sleep: async () => {} },
    });
    agent.get(ORIGIN).intercept(CREATE).reply(503, envelope("internal_error", `bad ${provisioningKey} and ${apiKey}`)).times(2);

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expectNoSecrets(error, lines, [provisioningKey, apiKey]);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  test("a key of the gateway's format that the client never held is scrubbed from messages", async () => {
    const stranger = withChecksum("regular", "Tq2".repeat(10) + "Vv");
    const { pool, client, logLines, done } = mockGateway();
    pool.intercept(CREATE).reply(401, envelope("invalid_credentials", `unknown key ${stranger}`));

    const error = await caught(client.apiKeys.create({ name: "ci" }));

    expect(error.message).toContain("unknown key gwk_[redacted]");
    expectNoSecrets(error, logLines, [stranger]);
    await done();
  });

  test("the client object itself shows no credential when inspected or serialised", () => {
    const client = new GatewayClient({ baseUrl: ORIGIN, provisioningKey: PROVISIONING_KEY, apiKey: API_KEY });
    for (const text of [inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client)]) {
      expect(text).not.toContain(PROVISIONING_KEY);
      expect(text).not.toContain(API_KEY);
    }
  });
});
