/**
 * The web console in a real browser (Debian's Chromium, driven by playwright-core) against a real
 * gateway with real traffic: sign-in and refusals, each page's figures against the account API,
 * what the browser holds, keyboard use and contrast, and a thousand keys. Screenshots of each page
 * go to test-results/console/.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { spendWindowsOf, withChecksum, type ApiKey, type AuditEvent, type ListPage, type LogEntry, type UsageSummary } from "@gateway-keys/contract";
import { launchChromium } from "@gateway-keys/testkit/browser";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond } from "../gateway/helpers";
import { describeWith } from "../support/needs";
import { focused, lowContrastTexts, screenshot, SCREENSHOTS } from "./support";

// The browser globals of the code page.evaluate runs in the page (this program is typed for Node).
declare const document: any, window: any, getComputedStyle: any, NodeFilter: any, localStorage: any, sessionStorage: any;

const describeWithBrowser = describeWith("chromium");

/** Content a client sent that must show as text, never run. */
const HOSTILE = `hello <img src=x onerror="window.__ran=1"><script>window.__ran=2</script>`;

describeWithBrowser("the web console", () => {
  let gateway: TestGateway;
  let browser: Browser;
  let account: ReturnType<typeof accountClient>;
  const keys: Record<string, { keyId: string; secret: string }> = {};

  beforeAll(async () => {
    gateway = await startTestGateway({ console: true, ownerId: "console-owner", rateLimit: { ratePerSecond: 100_000, burst: 100_000 } });
    account = accountClient(gateway);
    const create = async (name: string, body: object) => {
      const created = await gateway.createRegularKey({ name, ...body });
      keys[name] = { keyId: created.keyId, secret: created.secret };
    };
    await create("search service", {
      spendPolicy: { limitUnits: "5", resetPeriod: "monthly" },
      rateLimitPolicy: { requestsPerMinute: 600, maxConcurrentRequests: 20 },
      labels: { team: "search", env: "prod" },
      loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 7 },
      clientReference: "urn:pulumi:prod::billing::gatewaykeys:index:ApiKey::search",
    });
    await create("batch", { spendPolicy: { limitUnits: "0.002999" }, labels: { team: "batch" } });
    await create("allow-listed", { modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
    await create("expiring", { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await create("to revoke", {});
    await create(`<b>bold</b> & "quoted"`, {});
    for (let i = 0; i < 3; i++) expect((await respond(gateway, keys["search service"]!.secret, { model: "echo-1", input: HOSTILE })).status).toBe(200);
    expect((await respond(gateway, keys.batch!.secret, { model: "echo-1", input: "hello" })).status).toBe(402);
    expect((await respond(gateway, keys["allow-listed"]!.secret, { model: "reverse-1", input: "hello" })).status).toBe(403);
    expect((await respond(gateway, keys["allow-listed"]!.secret, { model: "echo-1", input: "hello" })).status).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  /** A fresh browser profile, signed in with `provisioningKey` (the fixture's by default), on the keys page. */
  async function signedIn(provisioningKey = gateway.provisioningKey): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(provisioningKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    return { context, page };
  }

  const apiKeys = async () => (await account.listAll()) as ApiKey[];
  const stateOf = (key: ApiKey) => (key.state === "revoked" ? "revoked" : key.expired ? "expired" : key.state);

  test("a wrong provisioning key, a regular key and a malformed one are refused, and the browser keeps nothing", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    const attempt = async (secret: string) => {
      await page.getByLabel("Provisioning key").fill(secret);
      await page.getByRole("button", { name: "Sign in" }).click();
      return page.getByRole("alert").textContent();
    };
    expect(await attempt(withChecksum("provisioning", "A".repeat(32)))).toContain("The provisioning key is not valid");
    expect(await attempt(keys.batch!.secret)).toContain("Sign in with a provisioning key (gwp_…)");
    expect(await attempt("not a key")).toContain("Sign in with a provisioning key (gwp_…)");
    expect(await context.cookies()).toEqual([]);
    expect(await page.getByLabel("Provisioning key").inputValue()).toBe("");
    await screenshot(page, "sign-in-refused");
    await context.close();
  });

  test("the keys page shows every key with the state, spend, labels and manager the account API gives", async () => {
    const { context, page } = await signedIn();
    const live = await apiKeys();
    await page.locator("tr[data-key-id]").nth(live.length - 1).waitFor();
    expect(await page.locator("tr[data-key-id]").count()).toBe(live.length);
    for (const key of live) {
      const row = page.locator(`tr[data-key-id="${key.keyId}"]`);
      expect(await row.locator("td").first().locator("a").textContent()).toBe(key.name);
      expect(await row.locator(".badge").textContent()).toBe(stateOf(key));
      const spent = key.spendWindow!.spentUnits;
      expect(await row.locator("td").nth(3).textContent()).toContain(key.spendPolicy ? `${spent} / ${spendWindowsOf(key.spendPolicy)[0]!.limitUnits}` : `${spent} spent, no limit`);
      const labels = Object.entries(key.labels).map(([name, value]) => `${name}=${value}`);
      expect(await row.locator("td").nth(2).textContent()).toBe(labels.length > 0 ? labels.join("") : "—");
    }
    const search = page.locator(`tr[data-key-id="${keys["search service"]!.keyId}"]`);
    expect(await search.textContent()).toContain("Pulumi billing/prod: search");
    // A name that looks like markup is shown as written.
    expect(await page.getByRole("link", { name: `<b>bold</b> & "quoted"` }).count()).toBe(1);
    expect(await page.locator("td b").count()).toBe(0);
    // Filter and sort.
    await page.getByLabel("Filter").fill("team=search");
    expect(await page.locator("tr[data-key-id]").count()).toBe(1);
    await page.getByLabel("Filter").fill("");
    await page.getByLabel("State").selectOption("expired");
    expect(await page.locator("tr[data-key-id]").count()).toBe(live.filter((key) => stateOf(key) === "expired").length);
    await page.getByLabel("State").selectOption("all");
    await page.getByRole("button", { name: "Name" }).click();
    const names = await page.locator("tr[data-key-id] td:first-child a").allTextContents();
    expect(names).toEqual([...live.map((key) => key.name)].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? 1 : -1)));
    await page.getByRole("button", { name: /^Name/ }).click();
    await screenshot(page, "keys");
    await context.close();
  });

  test("one key's page shows its policies, spend and traffic and recent requests as the API has them; stored content is text, never run", async () => {
    const { context, page } = await signedIn();
    const { keyId } = keys["search service"]!;
    await page.getByRole("link", { name: "search service" }).click();
    await page.getByRole("heading", { name: "Recent requests" }).waitFor();
    const key = (await account.get(keyId)).body;
    const text = (await page.locator("main").textContent())!;
    expect(text).toContain("600 requests/min, 20 in flight");
    expect(text).toContain(`${key.spendWindow!.spentUnits} / 5 per monthly window`);
    expect(text).toContain("Managed as code by Pulumi (billing/prod): search");
    expect(text).toContain("stores requests, stores responses, kept 7 days");
    const logs = (await account.logs(`?keyId=${keyId}&limit=20`)).body as ListPage<LogEntry>;
    expect(await page.locator("table.logs tbody tr").count()).toBe(logs.data.length);
    expect(await page.locator("table.logs").textContent()).toContain(HOSTILE);
    expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
    expect(await page.locator("main img").count()).toBe(0);
    // The by-model table sums what the timeline says: three answered echo-1 requests.
    expect(await page.locator("table.by-model tbody tr").first().textContent()).toMatch(/^echo-12003/);
    expect(await page.locator(".chart canvas").count()).toBe(2);
    // The charts plot what the API says: the key's spend, its three answered requests.
    expect(await page.getByRole("img", { name: `Spend over the last 30 days: ${key.spentUnits} credits` }).count()).toBe(1);
    expect(await page.getByRole("img", { name: "Requests in the last 24 hours: 3 answered, 0 refused or failed" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: /edit|delete|revoke|rotate|save/i }).count()).toBe(0);
    await screenshot(page, "key");
    await context.close();
  });

  test("the usage page's totals, models and labels equal the usage summary", async () => {
    const { context, page } = await signedIn();
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "By label" }).waitFor();
    const usage = (await account.usage()).body as UsageSummary;
    expect(await page.locator('[data-figure="requests"]').textContent()).toBe(String(usage.requests));
    expect(await page.locator('[data-figure="spent"]').textContent()).toBe(usage.spentUnits);
    for (const line of usage.byModel) {
      expect(await page.locator(`tr[data-model="${line.model}"]`).textContent()).toBe(`${line.model}${line.requests}${line.spentUnits}`);
    }
    for (const line of usage.byLabel) expect(await page.locator("table.by-label").textContent()).toContain(`${line.label}=${line.value}${line.requests}`);
    expect(await page.getByRole("img", { name: `Spend over the last 30 days: ${usage.spentUnits} credits` }).count()).toBe(1);
    await screenshot(page, "usage");
    await context.close();
  });

  test("the audit page lists the account changes as the API has them, newest first, with the chain's verdict; never a secret", async () => {
    const { context, page } = await signedIn();
    await page.getByRole("link", { name: "Audit" }).click();
    await page.getByRole("heading", { name: "Audit trail" }).waitFor();
    await page.locator("tr[data-event]").first().waitFor();
    const events = (await call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", "/v1/account/audit-events?limit=100", { bearer: gateway.provisioningKey })).body.data;
    const shown = await page.locator("tr[data-event]").evaluateAll((rows: any[]) => rows.map((row) => [row.dataset.event, row.dataset.action]));
    // Nothing changed between the page's read and this one (the sign-in came before both).
    expect(shown).toEqual(events.map((event) => [event.id, event.action]));
    expect(shown.map(([, action]) => action)).toEqual(expect.arrayContaining(["create", "console_sign_in"]));
    expect(await page.locator('[data-chain="valid"]').count()).toBe(1);
    const text = (await page.locator("main").textContent()) ?? "";
    for (const key of Object.values(keys)) expect(text).not.toContain(key.secret);
    expect(text).not.toContain(gateway.provisioningKey);
    expect(await lowContrastTexts(page)).toEqual([]);
    await screenshot(page, "audit");
    await context.close();
  });

  test("a key revoked in another tab shows as revoked on reload", async () => {
    const { context, page } = await signedIn();
    const other = await context.newPage();
    await other.goto(`${gateway.baseUrl}/console#/usage`);
    const { keyId } = keys["to revoke"]!;
    const before = (await account.get(keyId)).body;
    expect(await page.locator(`tr[data-key-id="${keyId}"] .badge`).textContent()).toBe("active");
    expect((await account.revoke(keyId, { expectedVersion: before.version })).status).toBe(200);
    await page.reload();
    await page.locator(`tr[data-key-id="${keyId}"]`).waitFor();
    expect(await page.locator(`tr[data-key-id="${keyId}"] .badge`).textContent()).toBe("revoked");
    await context.close();
  });

  test("the session is an HttpOnly, SameSite=Strict, short cookie that holds no key; no storage, strict CSP, no other origin, and it cannot change a key", async () => {
    const origins = new Set<string>();
    const context = await browser.newContext();
    context.on("request", (request) => origins.add(new URL(request.url()).origin));
    const page = await context.newPage();
    const pageAnswer = await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(gateway.provisioningKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();

    const [cookie, ...others] = await context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ name: "gateway_console", httpOnly: true, sameSite: "Strict", secure: false, path: "/" });
    expect(cookie!.expires * 1000 - Date.now()).toBeLessThanOrEqual(30 * 60 * 1000 + 5000);
    expect(cookie!.value).not.toContain(gateway.provisioningKey);
    expect(cookie!.value).not.toContain(createHash("sha256").update(gateway.provisioningKey).digest("hex"));
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, ""]);
    expect(page.url()).not.toContain("gwp_");
    expect([...origins]).toEqual([gateway.baseUrl]);

    const csp = pageAnswer!.headers()["content-security-policy"]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(pageAnswer!.headers()["x-frame-options"]).toBe("DENY");
    const asset = await call(gateway.baseUrl, "GET", "/console/assets/app.js");
    expect(asset.headers.get("content-security-policy")).toBe(csp);
    expect(asset.headers.get("x-content-type-options")).toBe("nosniff");

    // With the session alone, reads work and changes do not (they need the provisioning key itself).
    const { keyId } = keys.batch!;
    const attempts = await page.evaluate(async (id) => {
      const read = await fetch(`/v1/account/api-keys/${id}`);
      const change = await fetch(`/v1/account/api-keys/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "idempotency-key": "console-tries" },
        body: JSON.stringify({ expectedVersion: 1, name: "changed from the console" }),
      });
      return [read.status, change.status];
    }, keyId);
    expect(attempts).toEqual([200, 401]);
    expect((await account.get(keyId)).body.name).toBe("batch");
    await context.close();
  });

  test("the session ends when its provisioning key is revoked", async () => {
    const secret = await gateway.newProvisioningKey("console-owner", ["keys:read", "usage:read"]);
    const { context, page } = await signedIn(secret);
    const hash = createHash("sha256").update(secret).digest();
    const key = await gateway.store.findProvisioningKeyByHash(hash);
    expect(await gateway.store.revokeProvisioningKey(key!.id, Date.now())).toBe(true);
    expect(await page.evaluate(async () => (await fetch("/v1/account/api-keys")).status)).toBe(401);
    await page.reload();
    await page.getByLabel("Provisioning key").waitFor();
    await context.close();
  });

  test("a provisioning key without usage:read cannot sign in", async () => {
    const secret = await gateway.newProvisioningKey("console-owner", ["keys:read"]);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(secret);
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("usage:read");
    await context.close();
  });

  test("keyboard: a skip link first, every control reachable with Tab, focus visible, Enter opens a key", async () => {
    const { context, page } = await signedIn();
    // As a person arriving at the page: from its start.
    await page.reload();
    await page.locator("tr[data-key-id]").first().waitFor();
    const order: { tag: string; text: string; outline: string }[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      order.push(await focused(page));
    }
    expect(order[0]).toMatchObject({ tag: "a", text: "Skip to content" });

    expect(order.slice(1, 4).map((step) => step.text)).toEqual(["Keys", "Teams", "Usage"]);
    expect(order.map((step) => step.tag)).toEqual(expect.arrayContaining(["input", "select", "button"]));
    for (const step of order) expect(step.outline).not.toMatch(/^none/);
    // From the start again: the skip link moves the focus to the content and keeps the page.
    await page.reload();
    await page.locator("tr[data-key-id]").first().waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    expect(await page.getByRole("heading", { name: "Keys" }).count()).toBe(1);
    // Onwards to the first key's link, and Enter opens it.
    for (let i = 0; i < 30 && !(await page.evaluate(() => document.activeElement?.closest("tr[data-key-id]") !== null)); i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Policies" }).waitFor();
    expect(page.url()).toMatch(/#\/keys\/key_/);
    await context.close();
  });

  test("every page's text reads at WCAG AA contrast", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").waitFor();
    expect(await lowContrastTexts(page)).toEqual([]);
    await context.close();
    const signed = await signedIn();
    await signed.page.locator("tr[data-key-id]").first().waitFor();
    expect(await lowContrastTexts(signed.page)).toEqual([]);
    await signed.page.goto(`${gateway.baseUrl}/console#/keys/${keys["search service"]!.keyId}`);
    await signed.page.getByRole("heading", { name: "Recent requests" }).waitFor();
    expect(await lowContrastTexts(signed.page)).toEqual([]);
    await signed.page.goto(`${gateway.baseUrl}/console#/usage`);
    await signed.page.getByRole("heading", { name: "By label" }).waitFor();
    expect(await lowContrastTexts(signed.page)).toEqual([]);
    await signed.context.close();
  });

  test("a thousand keys: the keys page renders them all; its weight and time to render are recorded", async () => {
    const owner = "console-thousand";
    const secret = await gateway.newProvisioningKey(owner);
    const ownerAccount = accountClient(gateway, secret);
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          ownerAccount.create({ name: `service ${batch * 50 + i}`, spendPolicy: { limitUnits: "100", resetPeriod: "daily" }, labels: { team: `t${i % 7}` } }),
        ),
      );
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    /** Per response: the bytes it carried over the wire (compressed when the gateway compressed it) and decoded. */
    const loaded: Promise<{ url: string; transferred: number; bytes: number; encoding: string }>[] = [];
    page.on("response", (response) =>
      loaded.push(
        (async () => ({
          url: new URL(response.url()).pathname,
          transferred: (await response.request().sizes()).responseBodySize,
          bytes: (await response.body()).length,
          encoding: response.headers()["content-encoding"] ?? "identity",
        }))(),
      ),
    );
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(secret);
    const started = Date.now();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("tr[data-key-id]").nth(999).waitFor();
    const renderMs = Date.now() - started;
    expect(await page.locator("tr[data-key-id]").count()).toBe(1000);
    await screenshot(page, "keys-1000", false);
    const responses = await Promise.all(loaded);
    const sum = (field: "transferred" | "bytes", only: (url: string) => boolean) =>
      responses.filter((entry) => only(entry.url)).reduce((total, entry) => total + entry[field], 0);
    const isAsset = (url: string) => url.startsWith("/console");
    const everything = () => true;
    const figures = {
      keys: 1000,
      signInToThousandRowsMs: renderMs,
      transferredBytes: sum("transferred", everything),
      decodedBytes: sum("bytes", everything),
      assetsTransferredBytes: sum("transferred", isAsset),
      apiTransferredBytes: sum("transferred", (url) => !isAsset(url)),
      responses,
    };
    writeFileSync(join(SCREENSHOTS, "keys-1000.json"), `${JSON.stringify(figures, null, 2)}\n`);
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    console.log(
      `keys page with 1000 keys: rendered ${renderMs} ms after sign-in; ${kib(figures.transferredBytes)} over the wire ` +
        `(assets ${kib(figures.assetsTransferredBytes)}, API answers ${kib(figures.apiTransferredBytes)}), ${kib(figures.decodedBytes)} decoded`,
    );
    // The script and the key list travel compressed.
    expect(responses.find((entry) => entry.url === "/console/assets/app.js")?.encoding).toMatch(/^(br|gzip)$/);
    expect(responses.find((entry) => entry.url === "/v1/account/api-keys")?.encoding).toMatch(/^(zstd|br|gzip)$/);
    await context.close();
  });
});
