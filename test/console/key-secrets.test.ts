/**
 * The console's key page shows a key's two secrets as the gateway tracked them (extension
 * `secret_use`), in a real browser against a real gateway with real traffic: two services share a
 * key, it is rotated with a grace, one moves to the new secret and one does not. The page must name
 * each service under the secret it uses, with the figures the account API gives, and warn that the
 * old secret is still in use and when it stops. Screenshot: test-results/console/key-secrets.png.
 */
import type { Browser, Page } from "playwright-core";
import { ApiKey, type ApiKeyWithSecret } from "@gateway-keys/contract";
import { launchChromium } from "@gateway-keys/testkit/browser";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call } from "../gateway/helpers";
import { lowContrastTexts, screenshot } from "./support";
import { describeWith } from "../support/needs";

const describeWithBrowser = describeWith("chromium");

const BILLING = "billing-service/1.4 (node)";
const SEARCH = "search-indexer/2.3 (python-requests)";

describeWithBrowser("the key page's secrets", () => {
  let gateway: TestGateway;
  let browser: Browser;
  let account: ReturnType<typeof accountClient>;
  let shared: ApiKeyWithSecret;
  let fresh: ApiKeyWithSecret;

  /** A model request with `secret` as the service `userAgent`. */
  const ask = async (secret: string, userAgent: string) =>
    expect((await call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body: { model: "echo-1", input: "hi" }, headers: { "user-agent": userAgent } })).status).toBe(200);

  /** The key as the account API shows it, once `ready` holds (the tracker writes what it saw every flush). */
  async function settled(keyId: string, ready: (key: ApiKey) => boolean): Promise<ApiKey> {
    for (let tries = 0; tries < 100; tries++) {
      const key = ApiKey.parse((await account.get(keyId)).body);
      if (ready(key)) return key;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`key ${keyId} never showed the expected use`);
  }

  beforeAll(async () => {
    gateway = await startTestGateway({ console: true, ownerId: "secrets-owner", secretUse: { flushIntervalMs: 200 } });
    account = accountClient(gateway);
    shared = await gateway.createRegularKey({ name: "checkout", labels: { team: "payments" } });
    fresh = await gateway.createRegularKey({ name: "never rotated" });
    for (let i = 0; i < 3; i++) await ask(shared.secret, BILLING);
    for (let i = 0; i < 2; i++) await ask(shared.secret, SEARCH);
    await settled(shared.keyId, (key) => key.currentSecret?.requestsSinceRotation === 5);
    const rotated = await account.rotate(shared.keyId, { expectedVersion: shared.version, gracePeriodSeconds: 1800, retireWhenIdleSeconds: 900 });
    expect(rotated.status).toBe(200);
    // Billing moves to the new secret; search keeps the old one.
    for (let i = 0; i < 4; i++) await ask(rotated.body.secret, BILLING);
    for (let i = 0; i < 2; i++) await ask(shared.secret, SEARCH);
    await ask(fresh.secret, BILLING);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  async function keyPage(keyId: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(gateway.provisioningKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    await page.goto(`${gateway.baseUrl}/console#/keys/${keyId}`);
    await page.getByRole("heading", { name: "Secrets and their clients" }).waitFor();
    return page;
  }

  test("names each service under the secret it uses, with the API's figures, and warns that the old secret is still in use and when it stops", async () => {
    const key = await settled(shared.keyId, (read) => read.currentSecret?.requestsSinceRotation === 4 && read.previousSecret?.requestsSinceRotation === 2);
    const current = key.currentSecret!;
    const previous = key.previousSecret!;
    const page = await keyPage(shared.keyId);

    const warning = page.locator('[data-warning="previous-secret-in-use"]');
    expect(await warning.textContent()).toMatch(/^1 client still uses the previous secret; it stops in (29|30) min \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\./);

    const currentSection = page.getByRole("region", { name: "Current secret" });
    const previousSection = page.getByRole("region", { name: "Previous secret" });
    expect(await currentSection.locator("dd.mono").textContent()).toBe(current.hint);
    expect(await previousSection.locator("dd.mono").textContent()).toBe(previous.hint);
    expect(previous.hint).toBe(shared.hint);
    expect(await currentSection.textContent()).toContain(`Requests since rotation${current.requestsSinceRotation}`);
    expect(await previousSection.textContent()).toContain(`Requests since rotation${previous.requestsSinceRotation}`);
    // Last used: relative and absolute.
    expect(await currentSection.locator("dd time").last().textContent()).toMatch(/^(moments|\d+ min) ago \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);

    const rows = async (section: typeof currentSection) =>
      section.locator("table.clients tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from((tr as any).cells as any[], (cell: any) => cell.textContent as string)));
    const currentClients = await rows(currentSection);
    const previousClients = await rows(previousSection);
    expect(currentClients.map((row) => [row[0], row[1], row[4]])).toEqual(current.clients.map((client) => [client.userAgent, client.address, String(client.requests)]));
    expect(currentClients.map((row) => row[0])).toEqual([BILLING]);
    // Both services used the secret before the rotation; only search has used it since.
    expect(previousClients.map((row) => [row[0], row[4]])).toEqual(
      previous.clients.map((client) => [client.userAgent, client.requests === 0 ? "0: not since the rotation" : String(client.requests)]),
    );
    expect(previousClients.map((row) => [row[0], row[4]]).sort()).toEqual([
      [BILLING, "0: not since the rotation"],
      [SEARCH, "2"],
    ]);
    expect(previousClients[0]![2]).toMatch(/ago \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);

    const state = await previousSection.locator("[data-previous-state]").textContent();
    expect(state).toMatch(/^Works until in (29|30) min \(.+ UTC\), or until it has gone unused for 15 min\./);
    expect(await lowContrastTexts(page)).toEqual([]);
    await screenshot(page, "key-secrets");
    await page.context().close();
  });

  test("a key never rotated shows its one secret, no previous one and no warning", async () => {
    const key = await settled(fresh.keyId, (read) => read.currentSecret?.requestsSinceRotation === 1);
    const page = await keyPage(fresh.keyId);
    expect(await page.locator('[data-warning="previous-secret-in-use"]').count()).toBe(0);
    expect(await page.getByRole("region", { name: "Previous secret" }).textContent()).toContain("None: the key was never rotated.");
    expect(await page.getByRole("region", { name: "Current secret" }).locator("dd.mono").textContent()).toBe(key.currentSecret!.hint);
    await screenshot(page, "key-secrets-never-rotated");
    await page.context().close();
  });
});
