import { AuditEvent, ListPage, spendWindowsOf, Team, type ApiKey } from "@gateway-keys/contract";
import { ConflictError, GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

const auth = (bearer = gateway.provisioningKey) => ({ bearer });
const createTeam = (body: unknown, idempotencyKey = "auto", bearer?: string) =>
  call<Team>(gateway.baseUrl, "POST", "/v1/account/teams", { ...auth(bearer), body, idempotencyKey });
const getTeam = (teamId: string, bearer?: string) => call<Team>(gateway.baseUrl, "GET", `/v1/account/teams/${teamId}`, auth(bearer));
const patchTeam = (teamId: string, body: unknown, idempotencyKey = "auto") =>
  call<Team>(gateway.baseUrl, "PATCH", `/v1/account/teams/${teamId}`, { ...auth(), body, idempotencyKey });
const deleteTeam = (teamId: string, body: unknown, idempotencyKey = "auto") =>
  call(gateway.baseUrl, "DELETE", `/v1/account/teams/${teamId}`, { ...auth(), body, idempotencyKey });
const listTeams = (query = "") => call<ListPage<Team>>(gateway.baseUrl, "GET", `/v1/account/teams${query}`, auth());
const auditEvents = (query = "") => call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", `/v1/account/audit-events${query}`, auth());

describe("the team resource", () => {
  test("the gateway lists the extension teams", async () => {
    expect((await call(gateway.baseUrl, "GET", "/v1/startups")).body.extensions).toContain("teams");
  });

  test("create answers 201 with the team, its windows in their one order and nothing spent yet", async () => {
    const created = await createTeam({
      name: "search",
      labels: { cost_center: "cc-42" },
      spendPolicy: { windows: [{ limitUnits: "1000", resetPeriod: "monthly" }, { limitUnits: "50.50", resetPeriod: "daily" }] },
      rateLimitPolicy: { requestsPerMinute: 600 },
      modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
      budgetAlertThresholds: [0.5, 0.9],
    });
    expect(created.status).toBe(201);
    const team = Team.parse(created.body);
    expect(team.teamId).toMatch(/^team_[A-Za-z0-9]{20}$/);
    expect(team).toMatchObject({
      object: "team",
      ownerId: gateway.ownerId,
      name: "search",
      version: 1,
      keyCount: 0,
      spendPolicy: { currency: "unit", windows: [{ limitUnits: "50.5", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] },
      rateLimitPolicy: { requestsPerMinute: 600 },
      modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
      budgetAlertThresholds: [0.5, 0.9],
    });
    expect(team.spendWindows.map((window) => [window.resetPeriod, window.spentUnits])).toEqual([["daily", "0"], ["monthly", "0"]]);
    expect((await getTeam(team.teamId)).body).toEqual(created.body);
  });

  test("a create replayed with its Idempotency-Key answers the same team, and a different body under it is refused", async () => {
    const first = await createTeam({ name: "replayed" }, "team-create-1");
    const again = await createTeam({ name: "replayed" }, "team-create-1");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.teamId).toBe(first.body.teamId);
    expectError(await createTeam({ name: "other" }, "team-create-1"), 422, "idempotency_key_reused");
    expectError(await call(gateway.baseUrl, "POST", "/v1/account/teams", { ...auth(), body: { name: "no key" } }), 400, "missing_idempotency_key");
  });

  test("on create, a policy sent as null and one left out are the same request: the retry replays", async () => {
    const first = await createTeam({ name: "nulls" }, "team-create-nulls");
    const again = await createTeam({ name: "nulls", spendPolicy: null, rateLimitPolicy: null }, "team-create-nulls");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.teamId).toBe(first.body.teamId);
    // And the other way round.
    const nullFirst = await createTeam({ name: "nulls 2", spendPolicy: null, rateLimitPolicy: null }, "team-create-nulls-2");
    const leftOut = await createTeam({ name: "nulls 2" }, "team-create-nulls-2");
    expect(leftOut.headers.get("idempotent-replayed")).toBe("true");
    expect(leftOut.body.teamId).toBe(nullFirst.body.teamId);
  });

  test("bad fields are refused by name and create nothing", async () => {
    const before = (await listTeams("?limit=100")).body.data.length;
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "t", spendPolicy: { limitUnits: "-1" } }, "spendPolicy.limitUnits"],
      [{ name: "t", spendPolicy: { windows: [{ limitUnits: "1", resetPeriod: "daily" }, { limitUnits: "2", resetPeriod: "daily" }] } }, "spendPolicy.windows[1].resetPeriod"],
      [{ name: "t", rateLimitPolicy: {} }, "rateLimitPolicy"],
      [{ name: "t", modelPolicy: { mode: "allowList", modelIds: [] } }, "modelPolicy.modelIds"],
      [{ name: "t", budgetAlertThresholds: [2] }, "budgetAlertThresholds[0]"],
      [{ name: "t", owner: "someone" }, ""],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await createTeam(body), 400, "validation_failed");
      if (param) expect(error.param).toBe(param);
      else expect(error.message).toContain("owner");
    }
    expect((await listTeams("?limit=100")).body.data.length).toBe(before);
  });

  test("PATCH replaces what it names, null clears a policy, and a stale version is refused without a change", async () => {
    const team = (await createTeam({ name: "patched", spendPolicy: { limitUnits: "10", resetPeriod: "daily" }, rateLimitPolicy: { requestsPerMinute: 5 } })).body;
    const changed = await patchTeam(team.teamId, { expectedVersion: 1, name: "patched 2", spendPolicy: { limitUnits: "20", resetPeriod: "weekly" }, rateLimitPolicy: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ version: 2, name: "patched 2", spendPolicy: { limitUnits: "20", currency: "unit", resetPeriod: "weekly" }, rateLimitPolicy: null });
    const stale = expectError(await patchTeam(team.teamId, { expectedVersion: 1, name: "lost" }), 409, "conflict");
    expect(stale.currentVersion).toBe(2);
    expect((await getTeam(team.teamId)).body.name).toBe("patched 2");
    expectError(await patchTeam(team.teamId, { expectedVersion: 2 }), 400, "validation_failed");
    // The refusal of a missing or bad version speaks of the record at hand: this is a team, not a key.
    for (const [send, body] of [[patchTeam, { name: "unversioned" }], [deleteTeam, { expectedVersion: 0 }]] as const) {
      const unversioned = expectError(await send(team.teamId, body), 400, "validation_failed");
      expect(unversioned.param).toBe("expectedVersion");
      expect(unversioned.message).toBe("Invalid fields: expectedVersion: expected the version you last read (the record's version), an integer >= 1.");
    }
  });

  test("lists teams oldest first, a page at a time", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) await createTeam({ name });
    const all: Team[] = [];
    let after: string | null = null;
    do {
      const page: ListPage<Team> = (await listTeams(`?limit=2${after ? `&after=${after}` : ""}`)).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      all.push(...page.data);
      after = page.next_cursor;
    } while (after);
    const names = all.map((team) => team.name);
    expect(names.indexOf("page-a")).toBeLessThan(names.indexOf("page-b"));
    expect(names.indexOf("page-b")).toBeLessThan(names.indexOf("page-c"));
    expect(new Set(all.map((team) => team.teamId)).size).toBe(all.length);
  });

  test("another owner's team is not found, cannot be joined, changed or deleted", async () => {
    const other = await gateway.newProvisioningKey("other-owner");
    const theirs = (await createTeam({ name: "theirs" }, "auto", other)).body;
    expectError(await getTeam(theirs.teamId), 404, "team_not_found");
    expectError(await patchTeam(theirs.teamId, { expectedVersion: 1, name: "mine" }), 404, "team_not_found");
    expectError(await deleteTeam(theirs.teamId, { expectedVersion: 1 }), 404, "team_not_found");
    const joined = expectError(await account.create({ name: "joiner", teamId: theirs.teamId }), 400, "validation_failed");
    expect(joined.param).toBe("teamId");
    expect((await listTeams("?limit=100")).body.data.map((team) => team.teamId)).not.toContain(theirs.teamId);
    expect((await getTeam(theirs.teamId, other)).body.name).toBe("theirs");
  });
});

describe("keys in a team", () => {
  test("a key joins on create, moves by PATCH (version +1, audited) and leaves with null; keyCount follows", async () => {
    const a = (await createTeam({ name: "team a" })).body;
    const b = (await createTeam({ name: "team b" })).body;
    const key = await gateway.createRegularKey({ name: "mover", teamId: a.teamId });
    expect(key.teamId).toBe(a.teamId);
    expect((await getTeam(a.teamId)).body.keyCount).toBe(1);

    const moved = await account.patch(key.keyId, { expectedVersion: 1, teamId: b.teamId });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ teamId: b.teamId, version: 2 });
    expect([(await getTeam(a.teamId)).body.keyCount, (await getTeam(b.teamId)).body.keyCount]).toEqual([0, 1]);
    const [event] = (await auditEvents(`?keyId=${key.keyId}&action=update`)).body.data;
    expect(event!.changes.teamId).toEqual({ old: a.teamId, new: b.teamId });

    const left = await account.patch(key.keyId, { expectedVersion: 2, teamId: null });
    expect(left.body).toMatchObject({ teamId: null, version: 3 });
    expect((await getTeam(b.teamId)).body.keyCount).toBe(0);
    expectError(await account.patch(key.keyId, { expectedVersion: 3, teamId: "team_doesnotexist0000000" }), 400, "validation_failed");
    expect((await account.get(key.keyId)).body).toMatchObject({ teamId: null, version: 3 });
  });

  test("a move into a team that is not there keeps the key's order of checks: unknown key 404, revoked 409, stale 409, then the team", async () => {
    const gone = "team_doesnotexist0000000";
    expectError(await account.patch("key_doesnotexist00000000", { expectedVersion: 1, teamId: gone }), 404, "key_not_found");
    const revoked = await gateway.createRegularKey({ name: "revoked mover" });
    await account.revoke(revoked.keyId, { expectedVersion: 1 });
    expectError(await account.patch(revoked.keyId, { expectedVersion: 2, teamId: gone }), 409, "key_revoked");
    const stale = await gateway.createRegularKey({ name: "stale mover" });
    expect(expectError(await account.patch(stale.keyId, { expectedVersion: 5, teamId: gone }), 409, "conflict").currentVersion).toBe(1);
    expect(expectError(await account.patch(stale.keyId, { expectedVersion: 1, teamId: gone }), 400, "validation_failed").param).toBe("teamId");
    expect((await account.get(stale.keyId)).body).toMatchObject({ teamId: null, version: 1 });
  });

  test("a key of several windows reads them back in order, each with its spend", async () => {
    const key = await gateway.createRegularKey({
      name: "windows",
      spendPolicy: { windows: [{ limitUnits: "1000", resetPeriod: "monthly" }, { limitUnits: "50", resetPeriod: "daily" }] },
    });
    const read: ApiKey = (await account.get(key.keyId)).body;
    expect(read.spendPolicy).toEqual({ currency: "unit", windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] });
    expect(read.spendWindows.map((window) => [window.resetPeriod, window.limitUnits, window.spentUnits])).toEqual([["daily", "50", "0"], ["monthly", "1000", "0"]]);
    // The single-window form reads and writes as before.
    const single = await account.patch(key.keyId, { expectedVersion: 1, spendPolicy: { windows: [{ limitUnits: "7", resetPeriod: "weekly" }] } });
    expect(single.body.spendPolicy).toEqual({ limitUnits: "7", currency: "unit", resetPeriod: "weekly" });
  });

  test("a team with keys is not deleted: the refusal names its keys; once they left, it is, and audited", async () => {
    const team = (await createTeam({ name: "doomed" })).body;
    const keys = [await gateway.createRegularKey({ name: "k1", teamId: team.teamId }), await gateway.createRegularKey({ name: "k2", teamId: team.teamId })];
    const refused = expectError(await deleteTeam(team.teamId, { expectedVersion: 1 }), 409, "team_not_empty");
    expect(refused.teamId).toBe(team.teamId);
    expect([...refused.keyIds!].sort()).toEqual(keys.map((key) => key.keyId).sort());
    expect(refused.message).toContain(keys[0]!.keyId);
    expect((await getTeam(team.teamId)).status).toBe(200);

    await account.patch(keys[0]!.keyId, { expectedVersion: 1, teamId: null });
    // A revoked key no longer holds its team.
    await account.revoke(keys[1]!.keyId, { expectedVersion: 1 });
    expectError(await deleteTeam(team.teamId, { expectedVersion: 7 }), 409, "conflict");
    const deleted = await deleteTeam(team.teamId, { expectedVersion: 1 });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: "team", teamId: team.teamId, deleted: true });
    expectError(await getTeam(team.teamId), 404, "team_not_found");
    const events = (await auditEvents(`?teamId=${team.teamId}`)).body.data;
    expect(events.map((event) => event.action)).toEqual(["team_delete", "team_create"]);
    expect(events.every((event) => event.teamId === team.teamId && event.keyId === null)).toBe(true);
    const verified = await call(gateway.baseUrl, "GET", "/v1/account/audit-events/verify", auth());
    expect(verified.body).toMatchObject({ valid: true });
  });
});

describe("the SDK's teams resource against the gateway", () => {
  test("creates, reads, lists, changes and deletes a team; a stale version and a team with keys are refused with their errors", async () => {
    const client = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
    const team = await client.teams.create({ name: "sdk team", spendPolicy: { windows: [{ limitUnits: "5", resetPeriod: "daily" }, { limitUnits: "50", resetPeriod: "monthly" }] } });
    expect(spendWindowsOf(team.spendPolicy)).toEqual([{ limitUnits: "5", resetPeriod: "daily" }, { limitUnits: "50", resetPeriod: "monthly" }]);
    expect((await client.teams.get(team.teamId)).name).toBe("sdk team");
    const listed: string[] = [];
    for await (const each of client.teams.list({ limit: 2 })) listed.push(each.teamId);
    expect(listed).toContain(team.teamId);

    const key = await client.apiKeys.create({ name: "sdk member", teamId: team.teamId });
    expect(key.teamId).toBe(team.teamId);
    const changed = await client.teams.update(team.teamId, { expectedVersion: team.version, spendPolicy: { limitUnits: "7" } });
    expect(changed.spendPolicy).toEqual({ limitUnits: "7", currency: "unit", resetPeriod: "never" });
    const stale = await client.teams.update(team.teamId, { expectedVersion: team.version, name: "late" }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ConflictError);
    expect((stale as ConflictError).currentVersion).toBe(2);
    const notEmpty = await client.teams.delete(team.teamId, { expectedVersion: 2 }).catch((error: unknown) => error);
    expect(notEmpty).toBeInstanceOf(ConflictError);
    expect(notEmpty).toMatchObject({ code: "team_not_empty", teamId: team.teamId, keyIds: [key.keyId] });

    await client.apiKeys.update(key.keyId, { expectedVersion: key.version, teamId: null });
    expect(await client.teams.delete(team.teamId, { expectedVersion: 2 })).toEqual({ object: "team", teamId: team.teamId, deleted: true });
    const gone = await client.teams.get(team.teamId).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect((gone as NotFoundError).code).toBe("team_not_found");
  });
});
