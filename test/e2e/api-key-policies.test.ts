import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { GatewayClient } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { destroy, preview, refresh, up } from "@gateway-keys/testkit/engine";

/** The key policies beside the spend cap — reset period, rate limits, expiry, labels — through the real engine. */
describe("ApiKey policies", () => {
  const env = useKeyTestEnvironment();
  let outside: GatewayClient;
  beforeAll(() => {
    outside = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey, maxRetries: 0 });
  });
  afterAll(() => outside.close());

  async function keyStack(args: () => ApiKeyArgs): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "policies",
      async () => {
        const key = new ApiKey("search", args());
        return { keyId: key.keyId, version: key.version, expired: key.expired, labels: key.labels, rateLimitPolicy: key.rateLimitPolicy };
      },
      env.stackConfig(),
    );
  }

  it("declares every policy, shows each change in place in preview --diff, and an expiry changed outside on refresh", async () => {
    let args: ApiKeyArgs = {
      name: "search",
      spendPolicy: { limitUnits: "10", resetPeriod: "monthly" },
      rateLimitPolicy: { requestsPerMinute: 60, maxConcurrentRequests: 4 },
      expiresAt: "2099-01-01T00:00:00Z",
      labels: { team: "search", env: "prod" },
    };
    const stack = await keyStack(() => args);
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    expect(created.result.outputs).toMatchObject({
      expired: { value: false },
      labels: { value: { team: "search", env: "prod" } },
      rateLimitPolicy: { value: { requestsPerMinute: 60, maxConcurrentRequests: 4 } },
    });
    expect(await outside.apiKeys.get(keyId)).toMatchObject({
      spendPolicy: { limitUnits: "10", resetPeriod: "monthly" },
      rateLimitPolicy: { requestsPerMinute: 60, maxConcurrentRequests: 4 },
      expiresAt: "2099-01-01T00:00:00.000Z",
      labels: { team: "search", env: "prod" },
      version: 1,
    });
    // An unchanged program (the expiry written with another zone) is no change.
    args = { ...args, expiresAt: "2099-01-01T01:00:00+01:00" };
    expect((await preview(stack)).result.changeSummary).toEqual({ same: 2 });

    args = {
      ...args,
      spendPolicy: { limitUnits: "10", resetPeriod: "weekly" },
      rateLimitPolicy: { requestsPerMinute: 120 },
      expiresAt: "2099-06-01T00:00:00Z",
      labels: { team: "search", env: "staging" },
    };
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.output).not.toMatch(/replace/);
    expect(plan.output).toMatch(/~\s+spendPolicy\s*:/);
    expect(plan.output).toMatch(/~\s+resetPeriod\s*:\s*"monthly"\s*=>\s*"weekly"/);
    expect(plan.output).toMatch(/~\s+expiresAt\s*:\s*"2099-01-01T00:00:00.000Z"\s*=>\s*"2099-06-01T00:00:00.000Z"/);
    expect(plan.output).toMatch(/~\s+env\s*:\s*"prod"\s*=>\s*"staging"/);
    expect(plan.output).toMatch(/~\s+requestsPerMinute\s*:\s*60\s*=>\s*120/);
    const updated = await up(stack);
    expect(updated.result.outputs.keyId!.value).toBe(keyId);
    // One PATCH carried every change, each policy replaced whole.
    const live = await outside.apiKeys.get(keyId);
    expect(live).toMatchObject({ version: 2, spendPolicy: { limitUnits: "10", currency: "unit", resetPeriod: "weekly" }, expiresAt: "2099-06-01T00:00:00.000Z" });
    expect(live.rateLimitPolicy).toEqual({ requestsPerMinute: 120 });
    expect(live.labels).toEqual({ team: "search", env: "staging" });

    // Extended by hand, outside the stack: refresh shows it, and the next preview names it.
    await outside.apiKeys.update(keyId, { expectedVersion: 2, expiresAt: "2100-01-01T00:00:00Z" });
    const refreshed = await refresh(stack);
    expect(refreshed.result.summary.resourceChanges).toMatchObject({ update: 1 });
    const back = await preview(stack);
    expect(back.output).toMatch(/~\s+expiresAt\s*:\s*"2100-01-01T00:00:00.000Z"\s*=>\s*"2099-06-01T00:00:00.000Z"/);
    await destroy(stack);
    expect((await outside.apiKeys.get(keyId)).state).toBe("revoked");
  });
});
