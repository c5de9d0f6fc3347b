/**
 * The console's sign-in through OpenID Connect, in a real browser (Debian's Chromium, driven by
 * playwright-core), against a real OpenID provider (oidc-provider, its own process: login and
 * consent pages) and the gateway as deployed (`gateway serve --console --console-oidc FILE`, its own
 * process): redirect, login, consent, back; what a person's groups let them see; the refusals
 * (another owner, no owner, a tampered state, another issuer); the audit trail and the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ApiKey, AuditEvent, ListPage } from "@gateway-keys/contract";
import { launchChromium } from "@gateway-keys/testkit/browser";
import { freePort } from "@gateway-keys/testkit/free-port";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { call, expectError } from "../gateway/helpers";
import { describeWith } from "../support/needs";
import { createProvisioningKey, loginAtProvider, startPosingProvider, startProvider, type TestProvider } from "./oidc-support";
import { screenshot } from "./support";

const describeWithBrowser = describeWith("chromium");

const CLIENT_ID = "gateway-console";
const CLIENT_SECRET = "test-client-secret-3f9a1c7e5b2d";
const SECOND_CLIENT_ID = "gateway-console-second";
const ACCOUNTS = {
  alice: { email: "alice@example.com", groups: ["search-team", "everyone"] },
  carol: { email: "carol@example.com", groups: ["platform"] },
  bob: { email: "bob@example.com", groups: ["marketing"] },
};

describeWithBrowser("console sign-in with OpenID Connect", () => {
  let dir: string;
  let provider: TestProvider;
  let otherProvider: TestProvider;
  let gateway: GatewayProcess;
  let browser: Browser;
  const provisioningKeys: Record<string, string> = {};
  let keySessionCookie: string;
  let dbPath: string;
  /** The second gateway's callback (the ID-token-issuer test), registered with the provider as a second client. */
  let secondRedirectUrl: string;
  const keyNames: Record<string, string[]> = { search: ["search indexer", "search ranker"], ads: ["ads bidder"] };
  /** What crossed the browser on the way back from the provider: code and state, which the log must not hold. */
  const callbackUrls: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "console-oidc-"));
    dbPath = join(dir, "gateway.db");
    for (const owner of ["search", "ads"]) provisioningKeys[owner] = createProvisioningKey(dbPath, owner);
    [provider, otherProvider] = await Promise.all([startProvider(), startProvider()]);
    const port = await freePort();
    const redirectUrl = `http://127.0.0.1:${port}/console/oidc/callback`;
    secondRedirectUrl = `http://127.0.0.1:${await freePort()}/console/oidc/callback`;
    const client = (clientId: string, redirect: string) => ({ client_id: clientId, client_secret: CLIENT_SECRET, redirect_uris: [redirect], grant_types: ["authorization_code"], response_types: ["code"] });
    // The other issuer knows the same client: only its identity tells its answers apart.
    const clients = [client(CLIENT_ID, redirectUrl), client(SECOND_CLIENT_ID, secondRedirectUrl)];
    await Promise.all([provider, otherProvider].map((each) => each.configure({ clients, accounts: ACCOUNTS })));
    writeFileSync(join(dir, "client-secret"), `${CLIENT_SECRET}\n`, { mode: 0o600 });
    writeFileSync(
      join(dir, "oidc.yaml"),
      [
        `issuer: ${provider.issuer}`,
        `clientId: ${CLIENT_ID}`,
        `clientSecretFile: ${join(dir, "client-secret")}`,
        `redirectUrl: ${redirectUrl}`,
        "scopes: [openid, email, groups]",
        "access:",
        "  - { claim: groups, value: search-team, owners: [search] }",
        "  - { claim: groups, value: platform, owners: [search, ads] }",
      ].join("\n"),
    );
    // A provisioning key's console session, made while its sign-in was on (same database, same sealing key).
    const keyConsole = await startGatewayProcess({ dbPath, args: ["--console"] });
    const signedIn = await call(keyConsole.url, "POST", "/console/session", { body: { provisioningKey: provisioningKeys.search } });
    keySessionCookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    expect((await call(keyConsole.url, "GET", "/v1/account/api-keys", { headers: { cookie: keySessionCookie } })).status).toBe(200);
    await keyConsole.stop();
    gateway = await startGatewayProcess({
      dbPath,
      args: ["--port", String(port), "--console", "--console-oidc", join(dir, "oidc.yaml"), "--no-console-key-sign-in", "--log-level", "info"],
    });
    for (const [owner, names] of Object.entries(keyNames)) {
      for (const name of names) {
        const created = await call(gateway.url, "POST", "/v1/account/api-keys", { bearer: provisioningKeys[owner], body: { name }, idempotencyKey: "auto" });
        expect(created.status).toBe(201);
      }
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    provider?.stop();
    otherProvider?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh browser profile that starts the sign-in at the console and leaves for the provider. */
  async function startSignIn(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on("request", (request) => {
      if (request.url().includes("/console/oidc/callback")) callbackUrls.push(request.url());
    });
    await page.goto(`${gateway.url}/console`);
    await page.getByRole("link", { name: "Sign in with your identity provider" }).click();
    await page.locator("input[name=login]").waitFor();
    return { context, page };
  }

  const sessionCookie = async (context: BrowserContext) => (await context.cookies(gateway.url)).find((cookie) => cookie.name === "gateway_console");
  const visibleText = (page: Page) => page.locator("main").innerText();

  test("a person signs in through the provider and sees exactly the keys of the owner their group maps to", async () => {
    const { context, page } = await startSignIn();
    expect(new URL(page.url()).origin).toBe(provider.issuer);
    await loginAtProvider(page, "alice");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    expect(new URL(page.url()).origin).toBe(gateway.url);
    await expect(page.locator("header").innerText()).resolves.toMatch(/Owner\s+search.*signed in as alice@example\.com \(read-only\)/s);
    const shown = await visibleText(page);
    for (const name of keyNames.search!) expect(shown).toContain(name);
    for (const name of keyNames.ads!) expect(shown).not.toContain(name);
    // The account API, as the person's session reads it, lists the same keys and nothing more.
    const listed = await page.evaluate(async () => (await (await fetch("/v1/account/api-keys?limit=100")).json()) as ListPage<ApiKey>);
    expect(listed.data.map((key) => key.name).sort()).toEqual([...keyNames.search!].sort());
    // The session cookie keeps its flags; the pending login's cookie is spent.
    expect(await sessionCookie(context)).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect((await context.cookies(`${gateway.url}/console/oidc/callback`)).map((cookie) => cookie.name)).not.toContain("gateway_console_login");
    await screenshot(page, "oidc-keys");
    await context.close();
  });

  test("a person is refused another owner's pages, every change, and what only a provisioning key may read", async () => {
    const { context, page } = await startSignIn();
    await loginAtProvider(page, "alice");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    await page.goto(`${gateway.url}/console?owner=ads#/keys`);
    await expect(page.getByRole("alert").textContent()).resolves.toContain('You may not view the owner "ads"; you may view search.');
    expect(await visibleText(page)).not.toContain("ads bidder");
    const answers = await page.evaluate(async (adsKeyName) => {
      const status = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(path, init);
        return { status: response.status, body: await response.text() };
      };
      return {
        otherOwner: await status("/v1/account/api-keys", { headers: { "x-console-owner": "ads" } }),
        create: await status("/v1/account/api-keys", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "console-oidc-1" }, body: JSON.stringify({ name: adsKeyName }) }),
        whoami: await status("/v1/account/whoami"),
      };
    }, "made by a person");
    expect(answers.otherOwner.status).toBe(403);
    expect(JSON.parse(answers.otherOwner.body).error.code).toBe("owner_not_viewable");
    // The session cookie signs in reads only: a POST is as if it held nothing.
    expect(answers.create.status).toBe(401);
    expect(answers.whoami.status).toBe(403);
    const searchKeys = await call<ListPage<ApiKey>>(gateway.url, "GET", "/v1/account/api-keys?limit=100", { bearer: provisioningKeys.search });
    expect(searchKeys.body.data.map((key) => key.name)).not.toContain("made by a person");
    await screenshot(page, "oidc-other-owner-refused");
    await context.close();
  });

  test("a person whose group maps to two owners reads each in turn", async () => {
    const { context, page } = await startSignIn();
    await loginAtProvider(page, "carol");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    expect(await visibleText(page)).toContain("search indexer");
    await page.getByRole("link", { name: "View ads" }).click();
    await page.waitForURL(/owner=ads/);
    await page.getByText("ads bidder").waitFor();
    expect(await visibleText(page)).not.toContain("search indexer");
    await context.close();
  });

  test("a person whose groups map to no owner is told so, and gets no session", async () => {
    const { context, page } = await startSignIn();
    await loginAtProvider(page, "bob");
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("bob@example.com, but no access rule of this gateway gives you an owner or a team to view");
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });

  /**
   * A fresh browser profile that starts a sign-in as the console's link would, stopping at the
   * redirect to the provider (the browser's cookie jar keeps the pending login): the test decides
   * where the browser goes with the authorization request. (A redirect's target cannot be
   * intercepted in the browser, so the request is altered before it leaves.)
   */
  async function startSignInStopped(): Promise<{ context: BrowserContext; page: Page; authorization: URL }> {
    const context = await browser.newContext();
    const started = await context.request.get(`${gateway.url}/console/oidc/login`, { maxRedirects: 0 });
    expect(started.status()).toBe(303);
    const authorization = new URL(started.headers().location!);
    expect(authorization.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({ response_type: "code", client_id: CLIENT_ID, code_challenge_method: "S256" });
    for (const name of ["state", "nonce", "code_challenge"]) expect(authorization.searchParams.get(name)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    return { context, page: await context.newPage(), authorization };
  }

  test("a callback whose state was tampered with is refused, and gets no session", async () => {
    const { context, page, authorization } = await startSignInStopped();
    // The provider hands back whatever state it was sent: the callback's state is not the one the gateway sealed.
    authorization.searchParams.set("state", `${authorization.searchParams.get("state")}x`);
    await page.goto(authorization.href);
    await loginAtProvider(page, "alice");
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toMatch(/"state"/);
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });

  test("an answer from another issuer is refused, and gets no session", async () => {
    const { context, page, authorization } = await startSignInStopped();
    // The browser is sent to the other provider instead: it logs in there and comes back with that issuer's answer.
    await page.goto(authorization.href.replace(provider.issuer, otherProvider.issuer));
    await loginAtProvider(page, "alice");
    await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toMatch(/"iss"/);
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });

  test("an ID token from another issuer than the configured one is refused, and gets no session", async () => {
    // A second gateway trusts the posing provider; the real one behind it signs the ID token.
    const posing = await startPosingProvider(provider);
    const secondDir = mkdtempSync(join(tmpdir(), "console-oidc-posing-"));
    writeFileSync(
      join(secondDir, "oidc.json"),
      JSON.stringify({ issuer: posing.issuer, clientId: SECOND_CLIENT_ID, redirectUrl: secondRedirectUrl, scopes: ["openid", "email", "groups"], access: [{ claim: "groups", value: "search-team", owners: ["search"] }] }),
    );
    const second = await startGatewayProcess({
      args: ["--port", String(new URL(secondRedirectUrl).port), "--console", "--console-oidc", join(secondDir, "oidc.json")],
      env: { GATEWAY_CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET },
    });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${second.url}/console/oidc/login`);
      expect(new URL(page.url()).origin).toBe(posing.issuer);
      await loginAtProvider(page, "alice");
      await page.getByRole("heading", { name: "Sign-in refused" }).waitFor();
      expect(await page.getByRole("alert").textContent()).toMatch(/unexpected JWT "iss" \(issuer\) claim value/);
      expect((await context.cookies(second.url)).find((cookie) => cookie.name === "gateway_console")).toBeUndefined();
      await context.close();
    } finally {
      await second.stop();
      posing.server.closeAllConnections();
      posing.server.close();
      rmSync(secondDir, { recursive: true, force: true });
    }
  });

  test("the provisioning-key sign-in is turned off: not offered, refused, and its sessions read nothing", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.url}/console`);
    await page.getByRole("link", { name: "Sign in with your identity provider" }).waitFor();
    expect(await page.getByLabel("Provisioning key").count()).toBe(0);
    const refused = await call(gateway.url, "POST", "/console/session", { body: { provisioningKey: provisioningKeys.search } });
    expectError(refused, 403, "key_sign_in_disabled");
    // A key's session made while the key sign-in was on reads nothing more.
    expectError(await call(gateway.url, "GET", "/v1/account/api-keys", { headers: { cookie: keySessionCookie } }), 401, "invalid_credentials");
    expect((await call(gateway.url, "GET", "/console/session", { headers: { cookie: keySessionCookie } })).status).toBe(401);
    await context.close();
  });

  test("a person's session reads nothing on a gateway that does not sign people in through OpenID Connect", async () => {
    const { context, page } = await startSignIn();
    await loginAtProvider(page, "alice");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    const cookie = `gateway_console=${(await sessionCookie(context))!.value}`;
    await context.close();
    expect((await call(gateway.url, "GET", "/v1/account/api-keys", { headers: { cookie } })).status).toBe(200);
    // The same database and sealing key, the console on with the key sign-in only.
    const keyOnly = await startGatewayProcess({ dbPath, args: ["--console"] });
    try {
      expectError(await call(keyOnly.url, "GET", "/v1/account/api-keys", { headers: { cookie } }), 401, "invalid_credentials");
      expect((await call(keyOnly.url, "GET", "/console/session", { headers: { cookie } })).status).toBe(401);
    } finally {
      await keyOnly.stop();
    }
  });

  test("each sign-in is in the audit trail of every owner it may view, naming the person and never a token; the log holds no secret", async () => {
    const signIns = async (owner: string) => {
      const page = await call<ListPage<AuditEvent>>(gateway.url, "GET", "/v1/account/audit-events?action=console_sign_in&limit=100", { bearer: provisioningKeys[owner] });
      expect(page.status).toBe(200);
      // The key's sign-in of beforeAll is there too, as a `console` actor.
      return page.body.data.filter((event) => event.actor.kind === "person");
    };
    const [search, ads] = await Promise.all([signIns("search"), signIns("ads")]);
    // alice three times, carol once: refused sign-ins (no owner, a tampered state, another issuer) are not sign-ins.
    expect(search.map((event) => event.actor.id).sort()).toEqual(["alice", "alice", "alice", "carol"]);
    expect(ads.map((event) => event.actor)).toEqual([{ kind: "person", id: "carol", hint: "carol@example.com" }]);
    expect(search.find((event) => event.actor.id === "alice")).toMatchObject({ actor: { kind: "person", id: "alice", hint: "alice@example.com" }, keyId: null, changes: {} });
    const trail = JSON.stringify([...search, ...ads]);
    expect(trail).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    const log = gateway.output();
    expect(log).toContain("/console/oidc/callback");
    expect(log).not.toContain(CLIENT_SECRET);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    expect(callbackUrls.length).toBeGreaterThan(0);
    for (const url of callbackUrls) {
      const { searchParams } = new URL(url);
      for (const name of ["code", "state"]) expect(log).not.toContain(searchParams.get(name)!);
    }
  });
});
