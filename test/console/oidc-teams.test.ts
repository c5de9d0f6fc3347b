/**
 * The console's sign-in through OpenID Connect for a person whose group maps to a team, not to its
 * owner, in a real browser (Chromium) against a real OpenID provider (oidc-provider, its own
 * process) and the gateway as deployed (`gateway serve --console --console-oidc FILE`): the person
 * sees exactly the keys of that team, its page and its usage; another team's key or page, the
 * owner's audit trail and another owner are refused, in the console and through the account API
 * with the same session. (Each route's filter on both stores: test/gateway/console-team-view.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ApiKey, ApiKeyWithSecret, ListPage, Team, UsageSummary } from "@gateway-keys/contract";
import { launchChromium } from "@gateway-keys/testkit/browser";
import { freePort } from "@gateway-keys/testkit/free-port";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { call } from "../gateway/helpers";
import { describeWith } from "../support/needs";
import { createProvisioningKey, loginAtProvider, startProvider, type TestProvider } from "./oidc-support";
import { screenshot } from "./support";

const describeWithBrowser = describeWith("chromium");

const CLIENT_ID = "gateway-console";
const CLIENT_SECRET = "test-client-secret-8c2e4a6f1b3d";
const ACCOUNTS = { erin: { email: "erin@example.com", groups: ["ranking-eng", "everyone"] } };

describeWithBrowser("console sign-in with OpenID Connect: a group mapped to a team", () => {
  let dir: string;
  let provider: TestProvider;
  let gateway: GatewayProcess;
  let browser: Browser;
  const teams: Record<string, Team> = {};
  /** Keys by name, with the team each is in (search owns them all but "ads bidder"). */
  const keys: Record<string, ApiKeyWithSecret> = {};
  const keyTeams: Record<string, string | null> = { "ranker a": "ranking", "ranker b": "ranking", indexer: "indexing", loner: null };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "console-oidc-teams-"));
    const dbPath = join(dir, "gateway.db");
    const provisioningKeys = { search: createProvisioningKey(dbPath, "search"), ads: createProvisioningKey(dbPath, "ads") };
    // The teams exist before the access rules name them (by id): made through the account API first.
    const setupGateway = await startGatewayProcess({ dbPath });
    try {
      for (const name of ["ranking", "indexing"]) {
        const created = await call<Team>(setupGateway.url, "POST", "/v1/account/teams", { bearer: provisioningKeys.search, idempotencyKey: "auto", body: { name } });
        expect(created.status).toBe(201);
        teams[name] = created.body;
      }
      const create = (owner: keyof typeof provisioningKeys, name: string, teamId: string | null) =>
        call<ApiKeyWithSecret>(setupGateway.url, "POST", "/v1/account/api-keys", { bearer: provisioningKeys[owner], idempotencyKey: "auto", body: { name, teamId } });
      for (const [name, team] of Object.entries(keyTeams)) {
        const created = await create("search", name, team && teams[team]!.teamId);
        expect(created.status).toBe(201);
        keys[name] = created.body;
        // One request each: the usage page has something to leave out.
        expect((await call(setupGateway.url, "POST", "/v1/responses", { bearer: created.body.secret, body: { model: "echo-1", input: "hello" } })).status).toBe(200);
      }
      keys["ads bidder"] = (await create("ads", "ads bidder", null)).body;
    } finally {
      await setupGateway.stop();
    }
    provider = await startProvider();
    const port = await freePort();
    const redirectUrl = `http://127.0.0.1:${port}/console/oidc/callback`;
    await provider.configure({
      clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUrl], grant_types: ["authorization_code"], response_types: ["code"] }],
      accounts: ACCOUNTS,
    });
    writeFileSync(
      join(dir, "oidc.yaml"),
      [
        `issuer: ${provider.issuer}`,
        `clientId: ${CLIENT_ID}`,
        `redirectUrl: ${redirectUrl}`,
        "scopes: [openid, email, groups]",
        "access:",
        "  - claim: groups",
        "    value: ranking-eng",
        "    teams:",
        `      - { owner: search, teamId: ${teams.ranking!.teamId} }`,
        "  - { claim: groups, value: ads-admins, owners: [ads] }",
      ].join("\n"),
    );
    gateway = await startGatewayProcess({
      dbPath,
      args: ["--port", String(port), "--console", "--console-oidc", join(dir, "oidc.yaml"), "--no-console-key-sign-in"],
      env: { GATEWAY_CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    provider?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh browser profile signed in as erin through the provider, on the console's keys page. */
  async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.url}/console`);
    await page.getByRole("link", { name: "Sign in with your identity provider" }).click();
    await loginAtProvider(page, "erin");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    return { context, page };
  }

  const visibleText = (page: Page) => page.locator("main").innerText();
  const teamKeyNames = ["ranker a", "ranker b"];
  const otherKeyNames = ["indexer", "loner", "ads bidder"];

  test("a person whose group maps to a team sees exactly that team's keys, its page and its usage", async () => {
    const { context, page } = await signedIn();
    await expect(page.locator("header").innerText()).resolves.toMatch(/Owner\s+search\s+\(one team only\).*signed in as erin@example\.com \(read-only\)/s);
    // The audit trail is the whole owner's: not offered.
    expect(await page.getByRole("link", { name: "Audit" }).count()).toBe(0);
    const shown = await visibleText(page);
    for (const name of teamKeyNames) expect(shown).toContain(name);
    for (const name of otherKeyNames) expect(shown).not.toContain(name);
    await screenshot(page, "oidc-team-keys");

    await page.getByRole("link", { name: "Teams" }).click();
    await page.getByRole("heading", { name: "Teams" }).waitFor();
    expect(await page.locator("tr[data-team]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-team")))).toEqual([teams.ranking!.teamId]);
    await page.getByRole("link", { name: "ranking" }).click();
    await page.getByRole("heading", { name: "ranking" }).waitFor();
    expect(await page.locator("tr[data-key]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-key")))).toEqual(teamKeyNames.map((name) => keys[name]!.keyId));

    // The account API, as the session reads it, says the same: the team's keys, and its usage only.
    const read = await page.evaluate(async () => ({
      keys: (await (await fetch("/v1/account/api-keys?limit=100")).json()) as ListPage<ApiKey>,
      usage: (await (await fetch("/v1/account/usage/summary")).json()) as UsageSummary,
    }));
    expect(read.keys.data.map((key) => key.name)).toEqual(teamKeyNames);
    expect(read.usage.requests).toBe(2);
    expect(read.usage.byTeam.map((line) => line.teamId)).toEqual([teams.ranking!.teamId]);
    await context.close();
  });

  test("another team's key and page, the owner's audit trail and another owner are refused, in the console and through the API", async () => {
    const { context, page } = await signedIn();
    await page.goto(`${gateway.url}/console#/keys/${encodeURIComponent(keys.indexer!.keyId)}`);
    await expect(page.getByRole("alert").textContent()).resolves.toContain("No API key with this id belongs to your account.");
    expect(await visibleText(page)).not.toContain("indexer");
    await page.goto(`${gateway.url}/console#/audit`);
    // Only the hash changes: the key page's alert is still up until the audit page replaces it.
    const refusal = `You may view only the teams ${teams.ranking!.teamId} of the owner "search"`;
    await page.getByRole("alert").filter({ hasText: refusal }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole("alert").textContent()).resolves.toContain(refusal);
    await screenshot(page, "oidc-team-audit-refused");
    const answers = await page.evaluate(
      async ({ indexer, loner, adsBidder, indexing }) => {
        const status = async (path: string, headers: Record<string, string> = {}) => {
          const response = await fetch(path, { headers });
          return { status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code };
        };
        return {
          otherTeamKey: await status(`/v1/account/api-keys/${indexer}`),
          noTeamKey: await status(`/v1/account/api-keys/${loner}`),
          otherTeamLogs: await status(`/v1/account/logs?keyId=${indexer}`),
          otherTeam: await status(`/v1/account/teams/${indexing}`),
          otherOwner: await status("/v1/account/api-keys", { "x-console-owner": "ads" }),
          otherOwnerKey: await status(`/v1/account/api-keys/${adsBidder}`),
          audit: await status("/v1/account/audit-events"),
          webhooks: await status("/v1/account/webhooks"),
        };
      },
      { indexer: keys.indexer!.keyId, loner: keys.loner!.keyId, adsBidder: keys["ads bidder"]!.keyId, indexing: teams.indexing!.teamId },
    );
    expect(answers).toEqual({
      otherTeamKey: { status: 404, code: "key_not_found" },
      noTeamKey: { status: 404, code: "key_not_found" },
      otherTeamLogs: { status: 404, code: "key_not_found" },
      otherTeam: { status: 404, code: "team_not_found" },
      otherOwner: { status: 403, code: "owner_not_viewable" },
      otherOwnerKey: { status: 404, code: "key_not_found" },
      audit: { status: 403, code: "owner_not_viewable" },
      webhooks: { status: 403, code: "owner_not_viewable" },
    });
    await context.close();
  });
});
