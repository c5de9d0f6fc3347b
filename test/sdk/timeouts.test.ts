/** Per-attempt time limits and the caller's AbortSignal. */
import { AbortError, TimeoutError } from "@gateway-keys/sdk";
import { JSON_HEADERS, keyRecord, mockGateway } from "./support/mock-gateway";

const LIST = { path: "/v1/account/api-keys", method: "GET" } as const;
const page = { object: "list", data: [keyRecord()], has_more: false, next_cursor: null };

describe("time limits", () => {
  test("an attempt slower than timeoutMs is retried, and the retry's answer is returned", async () => {
    const { pool, client, sent, done } = mockGateway({ timeoutMs: 40 });
    pool.intercept(LIST).reply(200, page, { headers: JSON_HEADERS }).delay(1_000);
    pool.intercept(LIST).reply(200, page, { headers: JSON_HEADERS });

    const { data, response } = await client.apiKeys.list().withResponse();

    expect(data.data).toHaveLength(1);
    expect(response.attempts).toBe(2);
    expect(sent()).toHaveLength(2);
    await done();
  });

  test("throws TimeoutError when every attempt is too slow", async () => {
    const { pool, client, sent, done } = mockGateway({ timeoutMs: 30, maxRetries: 1 });
    pool.intercept(LIST).reply(200, page, { headers: JSON_HEADERS }).delay(1_000).times(2);

    const started = Date.now();
    const error = await client.apiKeys.list().then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: "timeout" });
    expect((error as Error).message).toMatch(/no complete answer within 30ms \(2 attempts\)/);
    expect(Date.now() - started).toBeLessThan(900);
    expect(sent()).toHaveLength(2);
    await done();
  });

  test("a call's timeoutMs overrides the client's", async () => {
    const { pool, client, done } = mockGateway({ timeoutMs: 60_000 });
    pool.intercept(LIST).reply(200, page, { headers: JSON_HEADERS }).delay(1_000);

    await expect(client.apiKeys.list({}, { timeoutMs: 20, maxRetries: 0 })).rejects.toBeInstanceOf(TimeoutError);
    await done();
  });

  test("the caller's signal aborts the call with AbortError and no retry", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(LIST).reply(200, page, { headers: JSON_HEADERS }).delay(1_000);
    const controller = new AbortController();

    const call = client.apiKeys.list({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await call.then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: "aborted" });
    expect(sent()).toHaveLength(1);
    await done();
  });

  test("an abort while waiting to retry ends the wait at once with AbortError", async () => {
    // The real timer this time: a 10 s backoff that the signal must cut short.
    const { pool, client, sent, done } = mockGateway({ backoff: { baseDelayMs: 10_000, sleep: undefined } });
    pool.intercept(LIST).reply(503, { error: { type: "api_error", code: "internal_error", message: "down" } });
    const controller = new AbortController();

    const started = Date.now();
    const call = client.apiKeys.list({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const error = await call.then(() => null, (e: unknown) => e);

    expect(error).toMatchObject({ constructor: AbortError, code: "aborted" });
    expect((error as Error).message).toMatch(/while waiting to retry/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sent()).toHaveLength(1);
    await done();
  });

  test("an already-aborted signal sends nothing", async () => {
    const { client, sent, done } = mockGateway();

    await expect(client.apiKeys.list({}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(sent()).toHaveLength(0);
    await done();
  });
});
