import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { REPO_ROOT, findLeaks, preview, runLifecycle, setStackConfig, type StackConfig } from "@gateway-keys/testkit/engine";

/**
 * The root quickstart and every example, each run as a project folder by the CLI (the way a user
 * runs it) against a real gateway: the full cycle with an edit, destroy revoking, and no secret on
 * disk in plaintext.
 */
describe("the quickstart and the examples", () => {
  const env = useKeyTestEnvironment({ ownerId: "staging" });

  /** A stack of `projectDir` connected to the test gateway through stack config. */
  function stackOf(projectDir: string, config: StackConfig = {}): Promise<auto.Stack> {
    return env.sandbox.projectStack(projectDir, {
      plain: { "gateway:baseUrl": env.gateway.baseUrl, ...config.plain },
      secret: { "gateway:provisioningKey": env.gateway.provisioningKey, ...config.secret },
    });
  }

  /** Fails with the file and label of every secret found in plaintext or base64 in the state or the stack's config file. */
  async function expectNoLeaks(stack: auto.Stack, projectDir: string, secrets: Record<string, string>): Promise<void> {
    expect(await findLeaks(env.sandbox.backendDir, secrets)).toEqual([]);
    const stackConfig = await readFile(join(REPO_ROOT, projectDir, `Pulumi.${stack.name}.yaml`), "utf8");
    expect(Object.entries(secrets).filter(([, value]) => stackConfig.includes(value)).map(([label]) => label)).toEqual([]);
  }

  const text = (result: auto.UpResult, name: string) => result.outputs[name]!.value as string;

  it("quickstart: the root project creates a working key, applies a new limit and a rotation in one update, and revokes it on destroy", async () => {
    const stack = await stackOf(".");
    let keyId = "";
    let first = "";
    let second = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        expect(result.outputs.secret!.secret).toBe(true);
        keyId = text(result, "keyId");
        first = text(result, "secret");
        expect(result.outputs.hint!.value).toBe(`${first.slice(0, 4)}...${first.slice(-4)}`);
        expect(result.outputs.version!.value).toBe(1);
        expect(await env.statusWith(first)).toBe(200);
      },
      edit: {
        apply: () => setStackConfig(stack, { plain: { "gateway-keys-quickstart:limitUnits": "250", "gateway-keys-quickstart:rotation": "2" } }),
        async verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
          expect(text(result, "keyId")).toBe(keyId);
          second = text(result, "secret");
          expect(second).not.toBe(first);
          expect(result.outputs.version!.value).toBe(3); // one PATCH, one rotation
          expect(await env.statusWith(first)).toBe(401);
          expect(await env.statusWith(second)).toBe(200);
        },
      },
      async afterDestroy() {
        expect(await env.statusWith(second)).toBe(401);
      },
    });
    await expectNoLeaks(stack, ".", { first, second, provisioningKey: env.gateway.provisioningKey });
  });

  it("basic: a policy change is an in-place update that raises the version and keeps the secret", async () => {
    const stack = await stackOf("examples/basic");
    const client = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
    let keyId = "";
    let secret = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        keyId = text(result, "keyId");
        secret = text(result, "secret");
        expect(result.outputs.secret!.secret).toBe(true);
        expect(await env.statusWith(secret)).toBe(200);
        const live = await client.apiKeys.get(keyId);
        expect(live).toMatchObject({ name: "ci pipeline", version: 1, spendPolicy: { limitUnits: "50" } });
        expect(live.loggingPolicy).toEqual({ storeRequest: false, storeResponse: false, retentionDays: 14 });
      },
      edit: {
        async apply() {
          await setStackConfig(stack, { plain: { "gateway-keys-basic:limitUnits": "75.5", "gateway-keys-basic:retentionDays": "30" } });
          const planned = await preview(stack);
          expect(planned.result.changeSummary).toMatchObject({ update: 1 });
          expect(planned.output).toMatch(/~\s+limitUnits\s*:\s*"50"\s*=>\s*"75.5"/);
          expect(planned.output).toMatch(/~\s+retentionDays\s*:\s*14\s*=>\s*30/);
        },
        async verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
          expect(text(result, "keyId")).toBe(keyId);
          expect(result.outputs.version!.value).toBe(2);
          expect(text(result, "secret")).toBe(secret);
          expect(await env.statusWith(secret)).toBe(200);
          const live = await client.apiKeys.get(keyId);
          expect(live).toMatchObject({ version: 2, spendPolicy: { limitUnits: "75.5" }, loggingPolicy: { retentionDays: 30 } });
        },
      },
      async afterDestroy() {
        expect(await env.statusWith(secret)).toBe(401);
      },
    });
    await expectNoLeaks(stack, "examples/basic", { secret, provisioningKey: env.gateway.provisioningKey });
  });

  it("team-budgets: two teams with their keys, a daily and a monthly window; a raised team window and an extended expiry are in-place updates", async () => {
    const stack = await stackOf("examples/team-budgets");
    const client = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
    const secrets: Record<string, string> = {};
    let contractorId = "";
    let searchId = "";
    let searchTeamId = "";
    let partnersTeamId = "";
    let alertsId = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        for (const name of ["search", "batch", "contractor"]) secrets[name] = text(result, `${name}Secret`);
        contractorId = text(result, "contractorKeyId");
        searchId = text(result, "searchKeyId");
        searchTeamId = text(result, "searchTeamId");
        partnersTeamId = text(result, "partnersTeamId");
        expect(await client.teams.get(searchTeamId)).toMatchObject({
          name: "search",
          keyCount: 2,
          spendPolicy: { windows: [{ limitUnits: "100", resetPeriod: "daily" }, { limitUnits: "2000", resetPeriod: "monthly" }] },
          rateLimitPolicy: { requestsPerMinute: 600 },
          budgetAlertThresholds: [0.8, 1],
        });
        expect(await client.teams.get(partnersTeamId)).toMatchObject({ keyCount: 1, modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
        expect(await client.apiKeys.get(searchId)).toMatchObject({
          teamId: searchTeamId,
          spendPolicy: { limitUnits: "500", resetPeriod: "monthly" },
          rateLimitPolicy: { requestsPerMinute: 600, tokensPerMinute: 200_000, maxConcurrentRequests: 20 },
          labels: { team: "search", env: "prod", "cost-center": "cc-104" },
          budgetAlertThresholds: [0.8, 1],
        });
        expect(await client.apiKeys.get(contractorId)).toMatchObject({
          teamId: partnersTeamId,
          expiresAt: "2099-01-01T00:00:00.000Z",
          spendPolicy: { resetPeriod: "weekly" },
          expiryWarningSeconds: 604_800,
        });
        expect(result.outputs.alertsSigningSecret!.secret).toBe(true);
        secrets.alerts = text(result, "alertsSigningSecret");
        alertsId = text(result, "alertsWebhookId");
        expect(await client.webhooks.get(alertsId)).toMatchObject({
          url: "https://hooks.example.com/gateway-keys",
          events: ["team.budget_threshold", "key.budget_threshold", "key.expiring", "key.expired"],
          enabled: true,
        });
        const searchKeys = await client.apiKeys.list({ label: "team=search" });
        expect(searchKeys.data.map((key) => key.keyId).sort()).toEqual([searchId, text(result, "batchKeyId")].sort());
        expect(await env.statusWith(secrets.contractor!)).toBe(200);
      },
      edit: {
        async apply() {
          await setStackConfig(stack, { plain: { "gateway-keys-team-budgets:contractorExpiresAt": "2100-01-01T00:00:00Z", "gateway-keys-team-budgets:searchMonthlyUnits": "2500" } });
          const planned = await preview(stack);
          expect(planned.result.changeSummary).toMatchObject({ update: 2, same: 5 });
          expect(planned.output).toMatch(/~\s+expiresAt\s*:\s*"2099-01-01T00:00:00.000Z"\s*=>\s*"2100-01-01T00:00:00.000Z"/);
          expect(planned.output).toMatch(/~\s+limitUnits\s*:\s*"2000"\s*=>\s*"2500"/);
        },
        async verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 2 });
          expect(await client.apiKeys.get(contractorId)).toMatchObject({ version: 2, expiresAt: "2100-01-01T00:00:00.000Z" });
          expect(await client.teams.get(searchTeamId)).toMatchObject({ version: 2, spendPolicy: { windows: [{ limitUnits: "100" }, { limitUnits: "2500" }] } });
        },
      },
      async afterDestroy() {
        for (const name of ["search", "batch", "contractor"]) expect(await env.statusWith(secrets[name]!)).toBe(401);
        await expect(client.webhooks.get(alertsId)).rejects.toBeInstanceOf(NotFoundError);
        for (const teamId of [searchTeamId, partnersTeamId]) await expect(client.teams.get(teamId)).rejects.toBeInstanceOf(NotFoundError);
      },
    });
    await client.close();
    await expectNoLeaks(stack, "examples/team-budgets", { ...secrets, provisioningKey: env.gateway.provisioningKey });
  });

  it("rotation: a new trigger rotates the service key in place with its old secret still working, and a new generation turns the partner pair", async () => {
    const stack = await stackOf("examples/rotation");
    const secrets: Record<string, string> = {};
    let serviceKeyId = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        serviceKeyId = text(result, "serviceKeyId");
        secrets.service = text(result, "serviceSecret");
        secrets.partner = text(result, "partnerSecret");
        expect(result.outputs.serviceRotation!.value).toMatchObject({ reason: "created" });
        expect(result.outputs.partnerCurrent!.value).toBe("a");
        expect(await env.statusWith(secrets.service!)).toBe(200);
        expect(await env.statusWith(secrets.partner!)).toBe(200);
      },
      edit: {
        async apply() {
          await setStackConfig(stack, { plain: { "gateway-keys-rotation:serviceRotation": "2", "gateway-keys-rotation:partnerGeneration": "1" } });
          const planned = await preview(stack);
          expect(planned.result.changeSummary).toEqual({ update: 2, same: 3 });
          expect(planned.output).toMatch(/~\s+rotationTrigger\s*:\s*"1"\s*=>\s*"2"/);
          expect(planned.output).toMatch(/~\s+rotationTrigger\s*:\s*-1\s*=>\s*1/);
          expect(planned.output).toMatch(/\+\s+secret\s*:\s*\[unknown\]/);
          expect(planned.output).not.toMatch(/replace/);
        },
        async verify(result) {
          expect(result.summary.resourceChanges).toEqual({ update: 2, same: 3 });
          expect(text(result, "serviceKeyId")).toBe(serviceKeyId);
          const rotated = (secrets.rotatedService = text(result, "serviceSecret"));
          expect(rotated).not.toBe(secrets.service);
          expect(result.outputs.serviceHint!.value).toBe(`${rotated.slice(0, 4)}...${rotated.slice(-4)}`);
          expect(Date.parse(text(result, "servicePreviousSecretExpiresAt"))).toBeGreaterThan(Date.now() + 55 * 60_000);
          // The grace period: both service secrets work; the pair's previous current key too.
          expect(await env.statusWith(secrets.service!)).toBe(200);
          expect(await env.statusWith(rotated)).toBe(200);
          expect(result.outputs.partnerCurrent!.value).toBe("b");
          secrets.partnerB = text(result, "partnerSecret");
          expect(secrets.partnerB).not.toBe(secrets.partner);
          expect(await env.statusWith(secrets.partner!)).toBe(200);
          expect(await env.statusWith(secrets.partnerB)).toBe(200);
        },
      },
      async afterDestroy() {
        for (const secret of Object.values(secrets)) expect(await env.statusWith(secret)).toBe(401);
      },
    });
    await expectNoLeaks(stack, "examples/rotation", { ...secrets, provisioningKey: env.gateway.provisioningKey });
  });

  it("multi-env: each key lands on the owner of its own provisioning key, and production may call only allow-listed models", async () => {
    const productionKey = await env.gateway.newProvisioningKey("production");
    // Only the per-environment keys: nothing falls back on gateway:provisioningKey.
    const stack = await env.sandbox.projectStack("examples/multi-env", {
      plain: { "gateway:baseUrl": env.gateway.baseUrl },
      secret: {
        "gateway-keys-multi-env:stagingProvisioningKey": env.gateway.provisioningKey,
        "gateway-keys-multi-env:productionProvisioningKey": productionKey,
      },
    });
    const keysOf = async (provisioningKey: string) => {
      const ids: string[] = [];
      for await (const key of new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey }).apiKeys.list()) ids.push(key.keyId);
      return ids;
    };
    const secrets: Record<string, string> = {};
    await runLifecycle(stack, {
      async afterCreate(result) {
        const staging = text(result, "stagingKeyId");
        const production = text(result, "productionKeyId");
        expect([text(result, "stagingOwner"), text(result, "productionOwner")]).toEqual(["staging", "production"]);
        const stagingList = await keysOf(env.gateway.provisioningKey);
        const productionList = await keysOf(productionKey);
        expect(stagingList).toContain(staging);
        expect(stagingList).not.toContain(production);
        expect(productionList).toContain(production);
        expect(productionList).not.toContain(staging);
        const stagingSecret = (secrets.staging = text(result, "stagingSecret"));
        const productionSecret = (secrets.production = text(result, "productionSecret"));
        expect(await env.statusWith(productionSecret, "echo-1")).toBe(200);
        expect(await env.statusWith(productionSecret, "reverse-1")).toBe(403);
        expect(await env.statusWith(stagingSecret, "reverse-1")).toBe(200);
      },
      edit: {
        apply: () => setStackConfig(stack, { plain: { "gateway-keys-multi-env:stagingLimitUnits": "40" } }),
        verify(result) {
          expect(result.summary.resourceChanges).toMatchObject({ update: 1, same: 2 });
          expect(result.outputs.stagingVersion!.value).toBe(2);
          expect(result.outputs.productionVersion!.value).toBe(1);
        },
      },
      async afterDestroy() {
        expect(await env.statusWith(secrets.staging!)).toBe(401);
        expect(await env.statusWith(secrets.production!)).toBe(401);
      },
    });
    await expectNoLeaks(stack, "examples/multi-env", {
      ...secrets,
      stagingProvisioningKey: env.gateway.provisioningKey,
      productionProvisioningKey: productionKey,
    });
  });
});
