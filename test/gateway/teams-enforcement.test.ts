/**
 * Teams enforced over HTTP on this file's store, with an injected clock: a request reserves from
 * its key's windows and its team's, all or none; each refusal names its level and window; the
 * team's model ceiling and rate limit apply to its keys together; a key that moves keeps its spend
 * and its old team keeps what it spent as a member; a window resets at its calendar boundary.
 */
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { GatewayConfig } from "@gateway-keys/gateway";
import { parseUnits, TeamBudgetThresholdEvent, type Team } from "@gateway-keys/contract";
import OpenAI from "openai";
import { call, expectError, respond, useGateway, type accountClient } from "./helpers";
import { openaiFor, rejection } from "./model-api-sdks-support";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

const clock = createTestClock(Date.UTC(2030, 0, 31, 12, 0));
const hello = { model: "echo-1", input: "hello", max_output_tokens: 1 }; // 0.003 a request, exactly its reservation
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  { clock: clock.now, metricsPort: 0, webhooks: { allowPrivateTargets: true, pollIntervalMs: 25, retryBaseMs: 40, maxRetryDelayMs: 200, scanIntervalMs: 0 } },
);

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

const createTeam = async (body: unknown): Promise<Team> => {
  const created = await call<Team>(gateway.baseUrl, "POST", "/v1/account/teams", { bearer: gateway.provisioningKey, body, idempotencyKey: "auto" });
  expect(created.status).toBe(201);
  return created.body;
};
const getTeam = async (teamId: string): Promise<Team> => (await call<Team>(gateway.baseUrl, "GET", `/v1/account/teams/${teamId}`, { bearer: gateway.provisioningKey })).body;
const patchTeam = (teamId: string, body: unknown) =>
  call<Team>(gateway.baseUrl, "PATCH", `/v1/account/teams/${teamId}`, { bearer: gateway.provisioningKey, body, idempotencyKey: "auto" });

test("keys in a team never spend past the team's window together, and the refusal names the team and its window", async () => {
  clock.set(Date.UTC(2030, 0, 31, 12, 0));
  const team = await createTeam({ name: "shared", spendPolicy: { limitUnits: "0.03", resetPeriod: "daily" } });
  const keys = await Promise.all([0, 1, 2, 3].map((i) => gateway.createRegularKey({ name: `member ${i}`, teamId: team.teamId })));
  const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => respond(gateway, keys[i % 4]!.secret, hello)));
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
  const refusals = answers.filter((answer) => answer.status !== 200);
  expect(refusals).toHaveLength(54);
  for (const refusal of refusals) {
    const error = expectError(refusal, 402, "team_budget_exceeded");
    expect(error).toMatchObject({ teamId: team.teamId, resetPeriod: "daily", resetsAt: "2030-02-01T00:00:00.000Z" });
    expect(error.message).toContain(team.teamId);
  }
  expect((await getTeam(team.teamId)).spendWindows).toEqual([
    { limitUnits: "0.03", resetPeriod: "daily", spentUnits: "0.03", startedAt: "2030-01-31T00:00:00.000Z", resetsAt: "2030-02-01T00:00:00.000Z" },
  ]);

  // The next day the team's window starts again at zero.
  clock.set(Date.UTC(2030, 1, 1));
  const next = await Promise.all(Array.from({ length: 16 }, (_, i) => respond(gateway, keys[i % 4]!.secret, hello)));
  expect(next.filter((answer) => answer.status === 200)).toHaveLength(10);
  expect((await getTeam(team.teamId)).spendWindows[0]).toMatchObject({ spentUnits: "0.03", startedAt: "2030-02-01T00:00:00.000Z" });
});

test("a key's own limit in a team refuses as the key's, naming its window", async () => {
  clock.set(Date.UTC(2030, 2, 3, 12, 0));
  const team = await createTeam({ name: "roomy", spendPolicy: { limitUnits: "100" } });
  const key = await gateway.createRegularKey({ teamId: team.teamId, spendPolicy: { limitUnits: "0.006", resetPeriod: "weekly" } });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  const error = expectError(await respond(gateway, key.secret, hello), 402, "spend_limit_reached");
  expect(error).toMatchObject({ resetPeriod: "weekly", resetsAt: "2030-03-04T00:00:00.000Z" });
  expect(error.teamId).toBeUndefined();
  expect((await getTeam(team.teamId)).spendWindows[0]!.spentUnits).toBe("0.006");
});

test("several windows on a key: the tightest refuses, and each window shows its spend", async () => {
  clock.set(Date.UTC(2030, 3, 10, 12, 0));
  const key = await gateway.createRegularKey({
    spendPolicy: { windows: [{ limitUnits: "0.009", resetPeriod: "daily" }, { limitUnits: "0.012", resetPeriod: "monthly" }] },
  });
  const first = await Promise.all(Array.from({ length: 8 }, () => respond(gateway, key.secret, hello)));
  expect(first.filter((answer) => answer.status === 200)).toHaveLength(3);
  expect(expectError(first.find((answer) => answer.status !== 200)!, 402, "spend_limit_reached").resetPeriod).toBe("daily");
  clock.set(Date.UTC(2030, 3, 11, 12, 0));
  const second = await Promise.all(Array.from({ length: 8 }, () => respond(gateway, key.secret, hello)));
  expect(second.filter((answer) => answer.status === 200)).toHaveLength(1);
  expect(expectError(second.find((answer) => answer.status !== 200)!, 402, "spend_limit_reached")).toMatchObject({ resetPeriod: "monthly", resetsAt: "2030-05-01T00:00:00.000Z" });
  expect((await account.get(key.keyId)).body.spendWindows.map((window: { resetPeriod: string; spentUnits: string }) => [window.resetPeriod, window.spentUnits])).toEqual([
    ["daily", "0.003"],
    ["monthly", "0.012"],
  ]);
});

test("the team's model ceiling refuses a model its key allows, naming the team", async () => {
  const team = await createTeam({ name: "ceiling", modelPolicy: { mode: "allowList", modelIds: ["echo-2"] } });
  const key = await gateway.createRegularKey({ teamId: team.teamId });
  const error = expectError(await respond(gateway, key.secret, hello), 403, "model_not_allowed");
  expect(error.teamId).toBe(team.teamId);
  expect(error.message).toContain(team.teamId);
  // Widening the ceiling applies to the next request.
  expect((await patchTeam(team.teamId, { expectedVersion: 1, modelPolicy: { mode: "all" } })).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
});

test("GET /v1/models lists to a key in a team only what its team's ceiling allows too, and one it does not is not found", async () => {
  const team = await createTeam({ name: "listed ceiling", modelPolicy: { mode: "allowList", modelIds: ["echo-1", "reverse-1"] } });
  const key = await gateway.createRegularKey({ teamId: team.teamId, modelPolicy: { mode: "allowList", modelIds: ["echo-1", "count-1"] } });
  const openai = openaiFor(gateway, key.secret);
  const ids: string[] = [];
  for await (const model of openai.models.list()) ids.push(model.id);
  // Only echo-1 is allowed by both the key's policy and its team's.
  expect(ids).toEqual(["echo-1"]);
  expect((await openai.models.retrieve("echo-1")).id).toBe("echo-1");
  for (const hidden of ["count-1", "reverse-1"]) {
    const error = await rejection(openai.models.retrieve(hidden));
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "model_not_found" });
  }
});

test("the team's rate limit counts its keys together and refuses with 429 team_rate_limited and Retry-After", async () => {
  clock.set(Date.UTC(2030, 5, 1, 12, 0));
  const team = await createTeam({ name: "rated", rateLimitPolicy: { requestsPerMinute: 3 } });
  const [a, b] = await Promise.all([gateway.createRegularKey({ teamId: team.teamId }), gateway.createRegularKey({ teamId: team.teamId })]);
  expect((await respond(gateway, a!.secret, hello)).status).toBe(200);
  expect((await respond(gateway, b!.secret, hello)).status).toBe(200);
  expect((await respond(gateway, a!.secret, hello)).status).toBe(200);
  const refused = await respond(gateway, b!.secret, hello);
  const error = expectError(refused, 429, "team_rate_limited");
  expect(error.teamId).toBe(team.teamId);
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
});

test("a request is admitted under its key's rate limit and its team's together or under neither: one the team refuses takes nothing from its key", async () => {
  clock.set(Date.UTC(2030, 5, 2, 12, 0));
  const team = await createTeam({ name: "one a minute", rateLimitPolicy: { requestsPerMinute: 1 } });
  const key = await gateway.createRegularKey({ teamId: team.teamId, rateLimitPolicy: { requestsPerMinute: 2 } });
  const first = await respond(gateway, key.secret, hello);
  expect(first.status).toBe(200);
  // The key's own figures go on the answer when it has a policy.
  expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
  expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
  const refused = await respond(gateway, key.secret, hello);
  expect(expectError(refused, 429, "team_rate_limited").teamId).toBe(team.teamId);
  // The refusal carries the refusing policy's figures: the team's.
  expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("1");
  // Out of the team, the key has one request left of its two this minute (the clock stands still):
  // the request its team refused was not counted against it.
  expect((await account.patch(key.keyId, { expectedVersion: 1, teamId: null })).status).toBe(200);
  const alone = await respond(gateway, key.secret, hello);
  expect(alone.status).toBe(200);
  expect(alone.headers.get("x-ratelimit-remaining-requests")).toBe("0");
  expectError(await respond(gateway, key.secret, hello), 429, "key_rate_limited");
});

test("a key that moves keeps its own spend; its old team keeps what it spent as a member, its new team counts from the move", async () => {
  clock.set(Date.UTC(2030, 6, 1, 12, 0));
  const from = await createTeam({ name: "from", spendPolicy: { limitUnits: "1", resetPeriod: "monthly" } });
  const to = await createTeam({ name: "to", spendPolicy: { limitUnits: "1", resetPeriod: "monthly" } });
  const key = await gateway.createRegularKey({ teamId: from.teamId });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await account.patch(key.keyId, { expectedVersion: 1, teamId: to.teamId })).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await getTeam(from.teamId)).spendWindows[0]!.spentUnits).toBe("0.003");
  expect((await getTeam(to.teamId)).spendWindows[0]!.spentUnits).toBe("0.006");
  expect((await account.get(key.keyId)).body.spentUnits).toBe("0.009");

  // The usage summary and the Prometheus metrics show each team's charges alike.
  const byTeam = (await account.usage()).body.byTeam as { teamId: string; name: string; requests: number; spentUnits: string }[];
  expect(byTeam.find((line) => line.teamId === from.teamId)).toEqual({ teamId: from.teamId, name: "from", requests: 1, spentUnits: "0.003" });
  expect(byTeam.find((line) => line.teamId === to.teamId)).toEqual({ teamId: to.teamId, name: "to", requests: 2, spentUnits: "0.006" });
  const metrics = await (await fetch(`${gateway.gateway.metricsUrl}/metrics`)).text();
  expect(metrics).toContain(`gateway_team_spent_units_total{team="${to.teamId}"} 0.006`);
  expect(metrics).toContain(`gateway_team_requests_total{team="${to.teamId}",outcome="succeeded"} 2`);
});

test("team.budget_threshold is sent once per window and threshold, with the team and the window, to endpoints whose selector matches the team", async () => {
  clock.set(Date.UTC(2030, 7, 1, 12, 0));
  const hook = await call(gateway.baseUrl, "POST", "/v1/account/webhooks", {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { url: receiver.url, events: ["team.budget_threshold"], labelSelector: { cost_center: "cc-7" } },
  });
  expect(hook.status).toBe(201);
  const team = await createTeam({
    name: "alerted",
    labels: { cost_center: "cc-7" },
    spendPolicy: { windows: [{ limitUnits: "0.012", resetPeriod: "daily" }, { limitUnits: "0.024", resetPeriod: "monthly" }] },
    budgetAlertThresholds: [0.5, 1],
  });
  const keys = await Promise.all([0, 1].map(() => gateway.createRegularKey({ teamId: team.teamId })));
  // Six requests, four of which the daily 0.012 affords: the daily window reaches 0.5 and 1, the monthly 0.5.
  await Promise.all(Array.from({ length: 6 }, (_, i) => respond(gateway, keys[i % 2]!.secret, hello)));
  const ofTeam = (accepted: { body: string }[]) => accepted.map((d) => TeamBudgetThresholdEvent.parse(JSON.parse(d.body))).filter((event) => event.data.teamId === team.teamId);
  await receiver.waitFor((accepted) => ofTeam(accepted).length >= 3, 5000);
  // A later charge in the same windows sends nothing again.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const events = ofTeam(receiver.accepted());
  expect(events.map((event) => [event.data.resetPeriod, event.data.threshold]).sort()).toEqual([["daily", 0.5], ["daily", 1], ["monthly", 0.5]]);
  expect(events.find((event) => event.data.resetPeriod === "monthly")!.data).toMatchObject({
    teamId: team.teamId,
    name: "alerted",
    labels: { cost_center: "cc-7" },
    limitUnits: "0.024",
    windowStartedAt: "2030-08-01T00:00:00.000Z",
    windowResetsAt: "2030-09-01T00:00:00.000Z",
  });
});

test("a key of several windows sends key.budget_threshold for each window that crosses, naming it, once", async () => {
  clock.set(Date.UTC(2030, 8, 1, 12, 0));
  const hook = await call(gateway.baseUrl, "POST", "/v1/account/webhooks", {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { url: receiver.url, events: ["key.budget_threshold"], labelSelector: { alerts: "windows" } },
  });
  expect(hook.status).toBe(201);
  // Both windows start at 00:00 on the 1st: each is marked apart.
  const key = await gateway.createRegularKey({
    labels: { alerts: "windows" },
    spendPolicy: { windows: [{ limitUnits: "0.006", resetPeriod: "daily" }, { limitUnits: "0.012", resetPeriod: "monthly" }] },
    budgetAlertThresholds: [0.5],
  });
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  expect((await respond(gateway, key.secret, hello)).status).toBe(200);
  const ofKey = (accepted: { body: string }[]) => accepted.map((d) => JSON.parse(d.body)).filter((event) => event.data.keyId === key.keyId);
  await receiver.waitFor((accepted) => ofKey(accepted).length >= 2, 5000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const events = ofKey(receiver.accepted());
  expect(events.map((event) => [event.type, event.data.resetPeriod, event.data.limitUnits]).sort()).toEqual([
    ["key.budget_threshold", "daily", "0.006"],
    ["key.budget_threshold", "monthly", "0.012"],
  ]);
});

describe("a key's own limit holds while it moves into or out of a team with a request in flight", () => {
  /** A provider whose streamed answers wait, after their first piece, until the test lets them end. */
  let provider: ScriptedProvider;
  let movingGateway: TestGateway;
  let finish: (() => void) | undefined;
  beforeAll(async () => {
    provider = await startScriptedProvider();
    provider.answer(() => ({
      handle: (_request, response) => {
        const chunk = (delta: object, finishReason: string | null) => ({ id: "c", object: "chat.completion.chunk", created: 1, model: "held-up", choices: [{ index: 0, delta, finish_reason: finishReason }] });
        const send = (data: unknown) => response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
        response.writeHead(200, { "content-type": "text/event-stream" });
        send(chunk({ role: "assistant", content: "ten tokens" }, null));
        finish = () => {
          send(chunk({}, "length"));
          // More than the reservation's bound: the charge stops at the reservation, so the request costs all it held.
          send({ id: "c", object: "chat.completion.chunk", created: 1, model: "held-up", choices: [], usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 } });
          send("[DONE]");
          response.end();
        };
      },
    }));
    process.env.GATEWAY_TEST_HELD_PROVIDER_KEY = "sk-held";
    const config = GatewayConfig.parse({
      providers: { held: { kind: "openai", baseUrl: `${provider.origin}/v1`, apiKeyEnv: "GATEWAY_TEST_HELD_PROVIDER_KEY", timeoutMs: 30_000 } },
      // 1 credit an input token, 2 an output token: a request of 10 output tokens reserves its JSON's bytes (the input's bound) + 20, under 200.
      models: [{ id: "held", family: "chat", routes: [{ provider: "held", model: "held-up" }], pricing: { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" }, maxOutputTokens: 100 }],
    });
    movingGateway = await startTestGateway({ config });
  });
  afterAll(async () => {
    await movingGateway?.stop();
    await provider?.close();
    delete process.env.GATEWAY_TEST_HELD_PROVIDER_KEY;
  });

  /** Starts a streamed request of `held` that stays in flight until `finish()`, holding its reservation; resolves once its first piece arrived. */
  async function heldRequest(secret: string): Promise<{ ended: Promise<void> }> {
    const stream = await openaiFor(movingGateway, secret).chat.completions.create({
      model: "held",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    // Wrapped: an async function returning the promise itself would wait for it.
    return {
      ended: (async () => {
        while (!(await iterator.next()).done);
      })(),
    };
  }

  // 100,000 one-token words in and 4,096 out: echo-1 reserves and charges 100 + 8.192 credits.
  const large = { model: "echo-1", input: "word ".repeat(100_000), max_output_tokens: 4096 };

  test.each([
    ["into a team", (teamId: string) => ({ create: {}, move: { teamId } })],
    ["out of its team", (teamId: string) => ({ create: { teamId }, move: { teamId: null } })],
    // Several windows reserve the way a team does: the same change of way, with no team.
    ["to a second window", () => ({ create: {}, move: { spendPolicy: { windows: [{ limitUnits: "200", resetPeriod: "never" }, { limitUnits: "1000", resetPeriod: "monthly" }] } } })],
  ])("moving %s: the request in flight still counts against the key's limit, which is never passed", async (_how, moves) => {
    const team = await call<Team>(movingGateway.baseUrl, "POST", "/v1/account/teams", { bearer: movingGateway.provisioningKey, body: { name: "far cap", spendPolicy: { limitUnits: "1000000" } }, idempotencyKey: "auto" });
    const { create, move } = moves(team.body.teamId);
    // 200 credits: the request in flight and the large one do not fit together; each alone does.
    const key = await movingGateway.createRegularKey({ spendPolicy: { limitUnits: "200" }, ...create });
    const inFlight = await heldRequest(key.secret);
    const moved = await call(movingGateway.baseUrl, "PATCH", `/v1/account/api-keys/${key.keyId}`, { bearer: movingGateway.provisioningKey, body: { expectedVersion: 1, ...move }, idempotencyKey: "auto" });
    expect(moved.status).toBe(200);
    const refused = await respond(movingGateway, key.secret, large);
    finish!();
    await inFlight.ended;
    expectError(refused, 402, "spend_limit_reached");
    const spent = (await call(movingGateway.baseUrl, "GET", `/v1/account/api-keys/${key.keyId}`, { bearer: movingGateway.provisioningKey })).body.spentUnits;
    expect(parseUnits(spent)).toBeGreaterThan(parseUnits("100"));
    expect(parseUnits(spent)).toBeLessThanOrEqual(parseUnits("200"));
  });
});
