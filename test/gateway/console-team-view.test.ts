/**
 * A person the console's access rules give some teams of an owner, not the owner (docs/console.md
 * #what-a-person-may-view), reading the account API with their session over real HTTP: each route
 * the console reads keeps to those teams and the keys now in them; a key or team outside them is
 * 404 as another owner's is; what only the whole owner may read is 403 `owner_not_viewable`.
 * The session is sealed here with the gateway's key, as the OpenID Connect callback seals it (the
 * sign-in itself, through a real provider in Chromium, is test/console/oidc-teams.test.ts).
 */
import { randomBytes } from "node:crypto";
import { ROUTES, type ApiKey, type ListPage, type LogEntry, type Metrics, type SpendWindow, type Team, type UsageSummary, type UsageTimeline } from "@gateway-keys/contract";
import { sealSession } from "@gateway-keys/gateway/dist/auth/console-session";
import { TEAM_VIEW_ROUTES } from "@gateway-keys/gateway/dist/auth/team-view";
import type { ViewableOwner } from "@gateway-keys/gateway/dist/context";
import { ReplyCipher } from "@gateway-keys/gateway/dist/crypto";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, respond, unreachableOidc } from "./helpers";

const OWNER = "acme";
const encryptionKey = randomBytes(32);
let gateway: TestGateway;
let otherOwnerKey: ApiKey;
const teams: Record<"search" | "ads", Team> = {} as never;
/** Keys by name: two in search, one in ads, one in no team. */
const keys: Record<string, ApiKey> = {};
/** Requests made with each key. */
const requests: Record<string, number> = { "search indexer": 3, "search ranker": 1, "ads bidder": 2, loner: 4 };
let searchOnly: string;
let wholeOwner: string;

/** A person's console session cookie, sealed as the sign-in seals it. */
function personCookie(owners: ViewableOwner[]): string {
  const sealed = sealSession(new ReplyCipher(encryptionKey), { kind: "person", person: { subject: "dana", email: "dana@example.com" }, owners, expiresAt: Date.now() + 600_000 });
  return `gateway_console=${sealed}`;
}

const read = <Body = unknown>(cookie: string, path: string) => call<Body>(gateway.baseUrl, "GET", path, { headers: { cookie } });

beforeAll(async () => {
  gateway = await startTestGateway({
    ownerId: OWNER,
    encryptionKey,
    // The session is sealed by the test.
    console: { oidc: unreachableOidc([{ claim: "groups", value: "everyone", owners: [OWNER] }]) },
  });
  for (const name of ["search", "ads"] as const) {
    const created = await call<Team>(gateway.baseUrl, "POST", "/v1/account/teams", { bearer: gateway.provisioningKey, idempotencyKey: "auto", body: { name } });
    expect(created.status).toBe(201);
    teams[name] = created.body;
  }
  const teamOf = { "search indexer": teams.search.teamId, "search ranker": teams.search.teamId, "ads bidder": teams.ads.teamId, loner: null };
  for (const [name, teamId] of Object.entries(teamOf)) {
    const { secret, ...key } = await gateway.createRegularKey({ name, teamId, labels: { app: name.split(" ")[0]! } });
    keys[name] = key;
    for (let n = 0; n < requests[name]!; n += 1) expect((await respond(gateway, secret)).status).toBe(200);
  }
  // Another owner's key, in a team of that owner.
  const otherProvisioningKey = await gateway.newProvisioningKey("globex");
  const otherTeam = await call<Team>(gateway.baseUrl, "POST", "/v1/account/teams", { bearer: otherProvisioningKey, idempotencyKey: "auto", body: { name: "search" } });
  const { secret: _secret, ...other } = await gateway.createRegularKey({ name: "globex key", teamId: otherTeam.body.teamId }, { provisioningKey: otherProvisioningKey });
  otherOwnerKey = other;
  searchOnly = personCookie([{ ownerId: OWNER, teamIds: [teams.search.teamId] }]);
  wholeOwner = personCookie([{ ownerId: OWNER, teamIds: null }]);
});
afterAll(async () => gateway?.stop());

const searchKeyNames = ["search indexer", "search ranker"];

test("the keys list holds the team's keys only, page by page and with a label selector", async () => {
  const first = await read<ListPage<ApiKey>>(searchOnly, "/v1/account/api-keys?limit=1");
  expect(first.status).toBe(200);
  expect(first.body.data.map((key) => key.name)).toEqual(["search indexer"]);
  expect(first.body.has_more).toBe(true);
  const second = await read<ListPage<ApiKey>>(searchOnly, `/v1/account/api-keys?limit=1&after=${encodeURIComponent(first.body.next_cursor!)}`);
  expect(second.body.data.map((key) => key.name)).toEqual(["search ranker"]);
  expect(second.body.has_more).toBe(false);
  const labelled = await read<ListPage<ApiKey>>(searchOnly, "/v1/account/api-keys?label=app%3Dads");
  expect(labelled.body.data).toEqual([]);
  // The whole owner's view, for contrast: every key.
  const all = await read<ListPage<ApiKey>>(wholeOwner, "/v1/account/api-keys?limit=100");
  expect(all.body.data.map((key) => key.name).sort()).toEqual(Object.keys(requests).sort());
});

test("a key outside the teams is 404 key_not_found, word for word as a key that does not exist", async () => {
  expect((await read<ApiKey>(searchOnly, `/v1/account/api-keys/${keys["search ranker"]!.keyId}`)).body.name).toBe("search ranker");
  const missing = expectError(await read(searchOnly, "/v1/account/api-keys/key_doesnotexist0000"), 404, "key_not_found");
  for (const keyId of [keys["ads bidder"]!.keyId, keys.loner!.keyId, otherOwnerKey.keyId]) {
    for (const path of [`/v1/account/api-keys/${keyId}`, `/v1/account/api-keys/${keyId}/spend-windows`, `/v1/account/logs?keyId=${keyId}`, `/v1/account/usage/timeline?bucket=day&keyId=${keyId}`]) {
      expect(expectError(await read(searchOnly, path), 404, "key_not_found")).toEqual(missing);
    }
  }
  expect((await read<ListPage<SpendWindow>>(searchOnly, `/v1/account/api-keys/${keys["search indexer"]!.keyId}/spend-windows`)).body.data[0]!.requests).toBe(3);
});

test("the usage summary counts the team's keys only: totals, by key, model, label and team", async () => {
  const summary = (await read<UsageSummary>(searchOnly, "/v1/account/usage/summary")).body;
  expect(summary.requests).toBe(4);
  expect(summary.byKey.map((line) => line.keyId).sort()).toEqual(searchKeyNames.map((name) => keys[name]!.keyId).sort());
  expect(summary.byModel).toEqual([expect.objectContaining({ model: "echo-1", requests: 4 })]);
  expect(summary.byLabel.map((line) => `${line.label}=${line.value}`)).toEqual(["app=search"]);
  expect(summary.byTeam.map((line) => [line.teamId, line.requests])).toEqual([[teams.search.teamId, 4]]);
  const whole = (await read<UsageSummary>(wholeOwner, "/v1/account/usage/summary")).body;
  expect(whole.requests).toBe(10);
  expect(whole.byTeam).toHaveLength(2);
});

test("metrics count the team's keys and their requests only", async () => {
  const metrics = (await read<Metrics>(searchOnly, "/v1/account/metrics")).body;
  expect(metrics.keys).toEqual({ active: 2, disabled: 0, revoked: 0 });
  expect(metrics.requests).toEqual({ total: 4, succeeded: 4, rejected: 0 });
  expect((await read<Metrics>(wholeOwner, "/v1/account/metrics")).body.keys.active).toBe(4);
});

test("request logs and the timeline hold the team's keys' requests only", async () => {
  const logs = await read<ListPage<LogEntry>>(searchOnly, "/v1/account/logs?limit=100");
  expect(logs.body.data).toHaveLength(4);
  expect(new Set(logs.body.data.map((entry) => entry.keyId))).toEqual(new Set(searchKeyNames.map((name) => keys[name]!.keyId)));
  const one = await read<ListPage<LogEntry>>(searchOnly, `/v1/account/logs?keyId=${keys["search ranker"]!.keyId}`);
  expect(one.body.data).toHaveLength(1);
  const timeline = await read<UsageTimeline>(searchOnly, "/v1/account/usage/timeline?bucket=day");
  expect(timeline.status).toBe(200);
  expect(timeline.body.data.reduce((sum, row) => sum + row.requests, 0)).toBe(4);
  const whole = await read<UsageTimeline>(wholeOwner, "/v1/account/usage/timeline?bucket=day");
  expect(whole.body.data.reduce((sum, row) => sum + row.requests, 0)).toBe(10);
});

test("the teams list and a team's page hold the person's teams only; another team is 404 team_not_found", async () => {
  const listed = await read<ListPage<Team>>(searchOnly, "/v1/account/teams");
  expect(listed.body.data.map((team) => team.name)).toEqual(["search"]);
  expect((await read<Team>(searchOnly, `/v1/account/teams/${teams.search.teamId}`)).body).toMatchObject({ name: "search", keyCount: 2 });
  const missing = expectError(await read(searchOnly, "/v1/account/teams/team_doesnotexist"), 404, "team_not_found");
  expect(expectError(await read(searchOnly, `/v1/account/teams/${teams.ads.teamId}`), 404, "team_not_found")).toEqual(missing);
  expect((await read<ListPage<Team>>(wholeOwner, "/v1/account/teams")).body.data).toHaveLength(2);
});

test("every other account read is the whole owner's: 403 owner_not_viewable, naming the teams the person may view", async () => {
  const webhook = await call(gateway.baseUrl, "POST", "/v1/account/webhooks", { bearer: gateway.provisioningKey, idempotencyKey: "auto", body: { url: "https://hooks.example.com/in", events: ["audit.create"] } });
  expect(webhook.status).toBe(201);
  const params: Record<string, string> = { keyId: keys["search indexer"]!.keyId, teamId: teams.search.teamId, webhookId: webhook.body.webhookId, model: "echo-1" };
  // Every GET a person's read scopes reach (whoami is a provisioning key's only: 403 missing_scope).
  const personReads = Object.entries(ROUTES).filter(([, spec]) => spec.method === "GET" && spec.auth.kind === "provisioning" && spec.auth.scope !== "any");
  const refused = personReads.filter(([name]) => !TEAM_VIEW_ROUTES.has(name as keyof typeof ROUTES));
  expect(refused.map(([name]) => name).sort()).toEqual(["getWebhook", "listAuditEvents", "listWebhookDeliveries", "listWebhooks", "verifyAuditEvents"]);
  for (const [, spec] of refused) {
    const path = spec.path.replace(/:([A-Za-z]+)/g, (_, name: string) => params[name]!);
    const error = expectError(await read(searchOnly, path), 403, "owner_not_viewable");
    expect(error.message).toContain(`You may view only the teams ${teams.search.teamId} of the owner "${OWNER}"`);
    // The whole owner's view reads it.
    expect((await read(wholeOwner, path)).status).toBe(200);
  }
});

test("an owner the person may view whole sits beside one they may view some teams of; x-console-owner picks which", async () => {
  const otherOwnerWhole = await gateway.newProvisioningKey("initech");
  await gateway.createRegularKey({ name: "initech key" }, { provisioningKey: otherOwnerWhole });
  const cookie = personCookie([
    { ownerId: OWNER, teamIds: [teams.ads.teamId] },
    { ownerId: "initech", teamIds: null },
  ]);
  const names = async (owner: string) =>
    (await call<ListPage<ApiKey>>(gateway.baseUrl, "GET", "/v1/account/api-keys", { headers: { cookie, "x-console-owner": owner } })).body.data.map((key) => key.name);
  await expect(names(OWNER)).resolves.toEqual(["ads bidder"]);
  await expect(names("initech")).resolves.toEqual(["initech key"]);
  const audit = await call(gateway.baseUrl, "GET", "/v1/account/audit-events", { headers: { cookie, "x-console-owner": "initech" } });
  expect(audit.status).toBe(200);
  expect((await call(gateway.baseUrl, "GET", "/console/session", { headers: { cookie } })).body).toMatchObject({
    kind: "person",
    ownerId: OWNER,
    owners: [OWNER, "initech"],
    teams: { [OWNER]: [teams.ads.teamId] },
  });
});

test("a person's session sealed before rules could name teams (no team list in it) still reads its owners whole", async () => {
  const sealed = new ReplyCipher(encryptionKey).seal(JSON.stringify({ s: "dana", m: null, o: [OWNER], e: Date.now() + 600_000 }), "console-session").toString("base64url");
  const listed = await read<ListPage<ApiKey>>(`gateway_console=${sealed}`, "/v1/account/api-keys?limit=100");
  expect(listed.body.data).toHaveLength(Object.keys(requests).length);
});
