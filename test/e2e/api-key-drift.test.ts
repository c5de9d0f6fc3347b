import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { GatewayClient } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { destroy, expectFailure, findLeaks, preview, refresh, setStackConfig, up } from "@gateway-keys/testkit/engine";

/** Keys changed outside the stack, adopted keys and foreign credentials, through the real engine. */
describe("ApiKey and the world outside the stack", () => {
  const env = useKeyTestEnvironment();
  /** Someone changing keys by hand, outside the stack. */
  let outside: GatewayClient;
  beforeAll(() => {
    outside = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey, maxRetries: 0 });
  });
  afterAll(() => outside.close());

  async function keyStack(args: () => ApiKeyArgs, importId?: () => string | undefined): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "drift",
      async () => {
        const id = importId?.();
        const key = new ApiKey("ci", args(), id ? { import: id } : undefined);
        return { keyId: key.keyId, secret: key.secret, secretKnown: key.secretKnown, version: key.version };
      },
      env.stackConfig(),
    );
  }

  it("shows a change made outside Pulumi after refresh, naming the property in the next preview", async () => {
    const stack = await keyStack(() => ({ name: "ci", spendPolicy: { limitUnits: "100" } }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    await outside.apiKeys.update(keyId, { expectedVersion: 1, name: "renamed-by-hand", state: "disabled" });

    const refreshed = await refresh(stack);
    expect(refreshed.result.summary.resourceChanges).toMatchObject({ update: 1 });
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.output).toMatch(/~\s+name\s*:\s*"renamed-by-hand"\s*=>\s*"ci"/);
    expect(plan.output).toMatch(/~\s+state\s*:\s*"disabled"\s*=>\s*"active"/);

    // Applying the program puts the key back as declared, from the refreshed version.
    await up(stack);
    expect(await outside.apiKeys.get(keyId)).toMatchObject({ name: "ci", state: "active", version: 3 });
    await destroy(stack);
  });

  it("fails an update on a stale version with the actionable message, and keeps the outside change", async () => {
    let limit = "100";
    const stack = await keyStack(() => ({ name: "ci", spendPolicy: { limitUnits: limit } }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    await outside.apiKeys.update(keyId, { expectedVersion: 1, name: "changed-outside" });

    limit = "200";
    const failure = await expectFailure(up(stack));
    expect(failure).toContain(
      `key ${keyId} changed outside this stack: state has version 1, the gateway has version 2; run \`pulumi refresh\`, review, then \`pulumi up\``,
    );
    expect(await outside.apiKeys.get(keyId)).toMatchObject({ name: "changed-outside", version: 2, spendPolicy: { limitUnits: "100" } });

    await refresh(stack);
    await up(stack);
    expect(await outside.apiKeys.get(keyId)).toMatchObject({ name: "ci", version: 3, spendPolicy: { limitUnits: "200" } });
    await destroy(stack);
  });

  it("lets a key revoked outside leave the stack on refresh, and destroy still succeeds", async () => {
    const stack = await keyStack(() => ({ name: "ci" }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    await outside.apiKeys.revoke(keyId, { expectedVersion: 1 });

    const refreshed = await refresh(stack);
    expect(refreshed.result.summary.resourceChanges).toMatchObject({ delete: 1 });
    env.recorder.reset();
    await destroy(stack);
    expect(env.recorder.calls()).toEqual([]);
  });

  it("treats a key revoked outside as already done when destroying without a refresh", async () => {
    const stack = await keyStack(() => ({ name: "ci" }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    await outside.apiKeys.revoke(keyId, { expectedVersion: 1 });
    env.recorder.reset();
    const destroyed = await destroy(stack);
    expect(destroyed.result.summary.resourceChanges).toMatchObject({ delete: 2 });
    expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/revoke"]);
  });

  it("adopts an existing key with the import option, says its secret is unknown, and rotating makes it managed", async () => {
    const existing = await env.gateway.createRegularKey({ name: "legacy", spendPolicy: { limitUnits: "50" } });
    let args: ApiKeyArgs = { name: "legacy", spendPolicy: { limitUnits: "50" } };
    let importId: string | undefined = existing.keyId;
    const stack = await keyStack(() => args, () => importId);

    const keysBefore = (await outside.apiKeys.list({ limit: 100 })).data.length;
    env.recorder.reset();
    const adopted = await up(stack);
    // One read reviews the adoption at check (where a preview would stop on a mismatch), one adopts.
    expect(env.recorder.calls()).toEqual(["GET /v1/account/api-keys/{id}", "GET /v1/account/api-keys/{id}"]);
    expect((await outside.apiKeys.list({ limit: 100 })).data.length).toBe(keysBefore);
    expect(adopted.result.outputs.keyId!.value).toBe(existing.keyId);
    expect(adopted.result.outputs.secretKnown!.value).toBe(false);
    expect(adopted.result.outputs.secret?.value).toBeUndefined();

    importId = undefined;
    await preview(stack, { expectNoChanges: true });
    args = { ...args, rotationTrigger: "take-over" };
    const rotated = await up(stack);
    expect(rotated.result.outputs.secretKnown!.value).toBe(true);
    const managedSecret = rotated.result.outputs.secret!.value as string;
    expect(managedSecret).not.toBe(existing.secret);
    expect(await findLeaks(env.sandbox.backendDir, { managedSecret, original: existing.secret })).toEqual([]);
    await destroy(stack);
  });

  it("refuses at preview to adopt a key that differs from the program, naming the difference and changing nothing", async () => {
    const existing = await env.gateway.createRegularKey({ name: "legacy", spendPolicy: { limitUnits: "50" } });
    const stack = await keyStack(() => ({ name: "legacy", spendPolicy: { limitUnits: "75" } }), () => existing.keyId);
    const failure = await expectFailure(preview(stack));
    expect(failure).toContain("gateway:ApiKey resource 'ci' has a problem: cannot adopt key");
    expect(failure).toContain(`cannot adopt key ${existing.keyId}: it differs from the program`);
    expect(failure).toContain('spendPolicy: the key has {"currency":"unit","limitUnits":"50","resetPeriod":"never"}, the program declares {"currency":"unit","limitUnits":"75","resetPeriod":"never"}');
    expect(await outside.apiKeys.get(existing.keyId)).toMatchObject({ version: 1, spendPolicy: { limitUnits: "50" } });
  });

  it("fails with a clear error and touches nothing when the configured provisioning key is another owner's", async () => {
    const stack = await keyStack(() => ({ name: "ci" }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    const otherOwnersKey = await env.gateway.newProvisioningKey("someone-else");
    await setStackConfig(stack, { secret: { "gateway:provisioningKey": otherOwnersKey } });

    env.recorder.reset();
    const planFailure = await expectFailure(preview(stack));
    expect(planFailure).toContain(`key ${keyId} belongs to owner test-owner, but the provisioning key configured for`);
    expect(planFailure).toContain("belongs to owner someone-else; nothing was changed");
    const upFailure = await expectFailure(up(stack));
    expect(upFailure).toContain("nothing was changed");
    // One whoami per engine run (preview, then up), and nothing else.
    expect(env.recorder.calls()).toEqual(["GET /v1/account/whoami", "GET /v1/account/whoami"]);
    expect(await outside.apiKeys.get(keyId)).toMatchObject({ state: "active", version: 1 });
    expect(planFailure).not.toContain(otherOwnersKey);

    // Destroy runs with the provider configuration the last deployment recorded: an `up` with the
    // right key records it again.
    await setStackConfig(stack, { secret: { "gateway:provisioningKey": env.gateway.provisioningKey } });
    const restored = await up(stack);
    expect(restored.result.summary.resourceChanges).toMatchObject({ same: 2 });
    await destroy(stack);
    expect(await outside.apiKeys.get(keyId)).toMatchObject({ state: "revoked" });
  });
});
