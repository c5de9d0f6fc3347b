/**
 * Issue 37's scenario: three gateways on one PostgreSQL database (in this process, each with its
 * own store — pool, spend holds, caches, lease holder — as three processes have, sharing one
 * injected clock so a window can reset under load), two teams of four keys, 64-wide bursts of
 * whole calls and streams (the official `openai` client's parser) crossing team and key limits:
 * no window of a team or a key ever spent past its limit, each refusal names its level, and a
 * daily window that resets during a burst loses and doubles nothing — per window, the charges the
 * days hold equal the logged costs, and all of them what the answers said they cost (a whole
 * answer's `x-gateway-cost-units`; a stream's usage, since a stream carries no such header).
 */
import { randomBytes, randomUUID } from "node:crypto";
import OpenAI, { APIError } from "openai";
import pg from "pg";
import { COST_HEADER, formatUnits, parseUnits } from "@gateway-keys/contract";
import { startGateway, type RunningGateway } from "@gateway-keys/gateway";
import { createTestClock, testPostgres, type TestPostgres } from "@gateway-keys/testkit/test-gateway";
import { describeWith } from "../support/needs";
import { call } from "./helpers";

const describeWithPostgres = describeWith("postgres");
const DAY = 86_400_000;
/** Every request here reserves and costs exactly this: "hello" (1 token, 0.001) and one output token (0.002). */
const COST = parseUnits("0.003");
/** echo-1's prices per token: 1,000 and 2,000 credits per million. */
const ECHO_INPUT_MICROS = parseUnits("0.001");
const ECHO_OUTPUT_MICROS = parseUnits("0.002");

interface Member {
  keyId: string;
  secret: string;
  teamId: string;
  /** The key's own daily limit, if any. */
  ownDailyMicros: bigint | null;
}

/** One answer: what it was charged (its cost header), or the error code and fields it was refused with. */
type Refusal = { status: number; code: string; teamId?: string; resetPeriod?: string };
type Outcome = { status: 200; costMicros: bigint } | Refusal;

describeWithPostgres("teams across three gateways on one PostgreSQL database", () => {
  let server: TestPostgres;
  let databaseUrl: string;
  let instances: RunningGateway[] = [];
  const clock = createTestClock(Date.UTC(2030, 0, 31, 22, 0));

  beforeAll(async () => {
    server = await testPostgres();
    databaseUrl = await server.createDatabase();
    const encryptionKey = randomBytes(32);
    const first = await startGateway({ databaseUrl, encryptionKey, clock: clock.now, bootstrap: { ownerId: "teams" }, webhooks: { deliver: false, scanIntervalMs: 0 } });
    const others = await Promise.all([1, 2].map(() => startGateway({ databaseUrl, encryptionKey, clock: clock.now, webhooks: { deliver: false, scanIntervalMs: 0 } })));
    instances = [first, ...others];
  });

  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await server?.stop();
  });

  const provisioning = () => instances[0]!.provisioningKey!;
  const post = async (path: string, body: unknown) => {
    const answer = await call(instances[1]!.url, "POST", path, { bearer: provisioning(), body, idempotencyKey: randomUUID() });
    expect(answer.status).toBe(201);
    return answer.body;
  };

  /** A whole Responses call (over fetch) or a streamed chat completion (the official client), on instance `i % 3`. */
  async function request(member: Member, i: number): Promise<Outcome> {
    const url = instances[i % 3]!.url;
    if (i % 2 === 0) {
      const answer = await call(url, "POST", "/v1/responses", { bearer: member.secret, body: { model: "echo-1", input: "hello", max_output_tokens: 1 } });
      if (answer.status === 200) return { status: 200, costMicros: parseUnits(answer.headers.get(COST_HEADER)!) };
      return { status: answer.status, ...answer.body.error };
    }
    const openai = new OpenAI({ apiKey: member.secret, baseURL: `${url}/v1`, maxRetries: 0 });
    try {
      const stream = await openai.chat.completions.create({
        model: "echo-1",
        messages: [{ role: "user", content: "hello" }],
        max_tokens: 1,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        usage = chunk.usage ?? usage;
      }
      expect(text.length).toBeGreaterThan(0);
      // A stream carries no cost header (its charge is known at its end): its usage, at echo-1's prices.
      return { status: 200, costMicros: BigInt(usage!.prompt_tokens) * ECHO_INPUT_MICROS + BigInt(usage!.completion_tokens) * ECHO_OUTPUT_MICROS };
    } catch (error) {
      if (!(error instanceof APIError)) throw error;
      return { status: error.status!, ...(error.error as { code: string }) };
    }
  }

  /**
   * `count` requests over the members, 64 in flight at a time; `during` runs when the first wave's
   * eighth answer arrives, while the rest of that wave is still in flight.
   */
  async function burst(members: readonly Member[], count: number, during?: () => void): Promise<{ member: Member; outcome: Outcome }[]> {
    const results: { member: Member; outcome: Outcome }[] = [];
    for (let start = 0; start < count; start += 64) {
      const wave = Array.from({ length: Math.min(64, count - start) }, (_, j) => {
        const member = members[(start + j) % members.length]!;
        return request(member, start + j).then((outcome) => {
          results.push({ member, outcome });
          if (start === 0 && results.length === 8) during?.();
        });
      });
      await Promise.all(wave);
    }
    return results;
  }

  /** Sums the database holds: charges per window (from the days) and logged costs per window, for one team or key. */
  async function sums(sql: string, params: unknown[]): Promise<bigint> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ sum: string | null }>(sql, params);
      return BigInt(rows[0]!.sum ?? "0");
    } finally {
      await client.end();
    }
  }
  const teamDays = (teamId: string, from: number, to: number) =>
    sums("SELECT SUM(spent_micros)::TEXT AS sum FROM team_spend_days WHERE team_id = $1 AND day >= $2 AND day < $3", [teamId, from, to]);
  const keyDays = (keyIds: readonly string[], from: number, to: number) =>
    sums("SELECT SUM(spent_micros)::TEXT AS sum FROM spend_days WHERE key_id = ANY ($1) AND day >= $2 AND day < $3", [keyIds, from, to]);
  const teamLogs = (teamId: string, from: number, to: number) =>
    sums("SELECT SUM(cost_micros)::TEXT AS sum FROM request_logs WHERE team_id = $1 AND created_at >= $2 AND created_at < $3", [teamId, from, to]);

  test("64-wide whole and streamed calls over 2 teams × 4 keys: no overshoot at either level, refusals named, and a window reset mid-burst loses and doubles nothing", async () => {
    // Team A: 0.09 a day (30 requests); its key a0 may spend 0.015 a day itself (5).
    // Team B: 0.06 a day (20) and 0.12 a month (40); its key b1 0.009 a day itself (3).
    const teamA = await post("/v1/account/teams", { name: "search", spendPolicy: { limitUnits: "0.09", resetPeriod: "daily" } });
    const teamB = await post("/v1/account/teams", {
      name: "ads",
      spendPolicy: { windows: [{ limitUnits: "0.06", resetPeriod: "daily" }, { limitUnits: "0.12", resetPeriod: "monthly" }] },
    });
    const member = async (teamId: string, ownDaily: string | null): Promise<Member> => {
      const key = await post("/v1/account/api-keys", { name: "member", teamId, ...(ownDaily ? { spendPolicy: { limitUnits: ownDaily, resetPeriod: "daily" } } : {}) });
      return { keyId: key.keyId, secret: key.secret, teamId, ownDailyMicros: ownDaily === null ? null : parseUnits(ownDaily) };
    };
    const members = [
      await member(teamA.teamId, "0.015"), await member(teamB.teamId, null), await member(teamA.teamId, null), await member(teamB.teamId, "0.009"),
      await member(teamA.teamId, null), await member(teamB.teamId, null), await member(teamA.teamId, null), await member(teamB.teamId, null),
    ];
    const limits = new Map([[teamA.teamId, parseUnits("0.09")], [teamB.teamId, parseUnits("0.06")]]);

    const day1 = Date.UTC(2030, 0, 31);
    const day2 = day1 + DAY;
    // Before the boundary: both teams spend part of their day (16 requests each, b1 held to 3 of its 4).
    clock.set(day2 - 3_600_000);
    const before = await burst(members, 32);
    // Across it: the clock reaches 00:00 UTC (and a new month) with most of the first 64 in flight,
    // some reserved in the old day and settled in the new one.
    clock.set(day2 - 1);
    let boundaryCrossed = false;
    const across = await burst(members, 256, () => {
      clock.set(day2);
      boundaryCrossed = true;
    });
    expect(boundaryCrossed).toBe(true);

    const outcomes = [...before, ...across];
    // Each refusal names its level: the key's own window only for a key that has one, else its team, with the team's id.
    for (const { member: who, outcome: answer } of outcomes) {
      if (!("code" in answer)) continue;
      const outcome: Refusal = answer;
      expect(outcome.status).toBe(402);
      if (outcome.code === "team_budget_exceeded") expect(outcome).toMatchObject({ teamId: who.teamId, resetPeriod: expect.stringMatching(/^(daily|monthly)$/) });
      else expect({ code: outcome.code, ownLimit: who.ownDailyMicros !== null, resetPeriod: outcome.resetPeriod }).toEqual({ code: "spend_limit_reached", ownLimit: true, resetPeriod: "daily" });
    }
    expect(outcomes.filter(({ outcome }) => "code" in outcome && outcome.code === "team_budget_exceeded").length).toBeGreaterThan(0);
    expect(outcomes.filter(({ outcome }) => "code" in outcome && outcome.code === "spend_limit_reached").length).toBeGreaterThan(0);

    const charged = (outcome: Outcome) => ("costMicros" in outcome ? outcome.costMicros : 0n);
    for (const { outcome } of outcomes) if ("costMicros" in outcome) expect(outcome.costMicros).toBe(COST);

    for (const [teamId, dailyLimit] of limits) {
      const keyIds = members.filter((who) => who.teamId === teamId).map((who) => who.keyId);
      for (const [from, to] of [[day1, day2], [day2, day2 + DAY]] as const) {
        const days = await teamDays(teamId, from, to);
        // Not a micro-credit past the team's window, either side of the boundary.
        expect(days).toBeLessThanOrEqual(dailyLimit);
        // The new day fills exactly: nothing the old day held (spend or requests in flight over the boundary) is counted in it.
        if (from === day2) expect(formatUnits(days)).toBe(formatUnits(dailyLimit));
        // The window's charges, as the team's days, its members' days and the logged costs hold them: one figure.
        expect(await teamLogs(teamId, from, to)).toBe(days);
        expect(await keyDays(keyIds, from, to)).toBe(days);
      }
    }
    // Team B's monthly windows: January's and February's, each within 0.12.
    expect(await teamDays(teamB.teamId, Date.UTC(2030, 0, 1), Date.UTC(2030, 1, 1))).toBeLessThanOrEqual(parseUnits("0.12"));
    // Keys with their own daily limit never passed it, either day.
    for (const who of members.filter((each) => each.ownDailyMicros !== null)) {
      for (const from of [day1, day2]) expect(await keyDays([who.keyId], from, from + DAY)).toBeLessThanOrEqual(who.ownDailyMicros!);
    }
    // Nothing lost or doubled: what the answers said they were charged is what the days hold.
    const answered = outcomes.reduce((sum, { outcome }) => sum + charged(outcome), 0n);
    const allKeys = members.map((who) => who.keyId);
    expect(formatUnits(answered)).toBe(formatUnits(await keyDays(allKeys, 0, Number.MAX_SAFE_INTEGER)));
    expect(formatUnits(answered)).toBe(formatUnits((await teamDays(teamA.teamId, 0, Number.MAX_SAFE_INTEGER)) + (await teamDays(teamB.teamId, 0, Number.MAX_SAFE_INTEGER))));
    // And the account API reads the same: team A's window of the new day is full.
    const read = await call(instances[2]!.url, "GET", `/v1/account/teams/${teamA.teamId}`, { bearer: provisioning() });
    expect(read.body.spendWindows[0]).toMatchObject({ spentUnits: "0.09", startedAt: new Date(day2).toISOString() });
  }, 90_000);
});
