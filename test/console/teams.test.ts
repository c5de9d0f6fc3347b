/**
 * The console's team pages in a real browser against a real gateway with real traffic: the teams
 * list and one team's page show what the account API gives — each window's spend, its shared
 * limits and its keys — in readable contrast.
 */
import type { Browser, Page } from "playwright-core";
import type { Team } from "@gateway-keys/contract";
import { launchChromium } from "@gateway-keys/testkit/browser";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, respond } from "../gateway/helpers";
import { describeWith } from "../support/needs";
import { lowContrastTexts, screenshot } from "./support";

const describeWithBrowser = describeWith("chromium");

describeWithBrowser("the console's team pages", () => {
  let gateway: TestGateway;
  let browser: Browser;
  let team: Team;
  const keyIds: string[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway({ console: true, ownerId: "console-teams" });
    const created = await call<Team>(gateway.baseUrl, "POST", "/v1/account/teams", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      body: {
        name: "search platform",
        labels: { cost_center: "cc-42" },
        spendPolicy: { windows: [{ limitUnits: "0.012", resetPeriod: "daily" }, { limitUnits: "1", resetPeriod: "monthly" }] },
        rateLimitPolicy: { requestsPerMinute: 600 },
        modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
      },
    });
    expect(created.status).toBe(201);
    for (const name of ["indexer", "query api"]) {
      const key = await gateway.createRegularKey({ name, teamId: created.body.teamId });
      keyIds.push(key.keyId);
      expect((await respond(gateway, key.secret, { model: "echo-1", input: "hello", max_output_tokens: 1 })).status).toBe(200);
    }
    await gateway.createRegularKey({ name: "outsider" });
    team = (await call<Team>(gateway.baseUrl, "GET", `/v1/account/teams/${created.body.teamId}`, { bearer: gateway.provisioningKey })).body;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${gateway.baseUrl}/console`);
    await page.getByLabel("Provisioning key").fill(gateway.provisioningKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    return page;
  }

  test("the teams page lists each team with its keys and every window's spend; its page shows the windows, shared limits and only its keys", async () => {
    const page = await signedIn();
    await page.getByRole("link", { name: "Teams" }).click();
    await page.getByRole("heading", { name: "Teams" }).waitFor();
    const row = page.locator(`tr[data-team="${team.teamId}"]`);
    await row.waitFor();
    expect(await row.locator("td").nth(2).textContent()).toBe("2");
    expect(team.spendWindows.map((window) => [window.resetPeriod, window.spentUnits])).toEqual([["daily", "0.006"], ["monthly", "0.006"]]);
    expect(await row.locator('[data-window="daily"]').textContent()).toContain("0.006 / 0.012");
    expect(await row.locator('[data-window="monthly"]').textContent()).toContain("0.006 / 1");
    await screenshot(page, "teams");

    await row.getByRole("link", { name: "search platform" }).click();
    await page.getByRole("heading", { name: "search platform" }).waitFor();
    for (const window of team.spendWindows) {
      const shown = page.locator(`table.team-windows tr[data-window="${window.resetPeriod}"]`);
      expect(await shown.textContent()).toContain(`${window.spentUnits} / ${window.limitUnits}`);
    }
    expect(await page.locator("table.team-keys tr[data-key]").evaluateAll((rows: any[]) => rows.map((tr) => tr.dataset.key).sort())).toEqual([...keyIds].sort());
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("600 requests/min");
    expect(text).toContain("echo-1");
    expect(text).not.toContain("outsider");
    expect(await lowContrastTexts(page)).toEqual([]);
    await screenshot(page, "team");
  });
});
