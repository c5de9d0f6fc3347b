import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import type { PreviousSecretUse } from "@gateway-keys/contract";
import { GatewayClient } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { destroy, engineTranscript, preview, refresh, up } from "@gateway-keys/testkit/engine";

/**
 * Extension `secret_use` as code, through the real engine: `retireWhenIdle` reaches the gateway with
 * the rotation, a refresh after traffic brings each secret's use into state without a change, and a
 * preview that would rotate over a previous secret still in use warns, naming its clients.
 */
describe("ApiKey and the use of its secrets", () => {
  const env = useKeyTestEnvironment({ secretUse: { flushIntervalMs: 200 } });
  let outside: GatewayClient;
  beforeAll(() => {
    outside = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey, maxRetries: 0 });
  });
  afterAll(() => outside.close());

  function keyStack(args: () => ApiKeyArgs): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "secret-use",
      async () => {
        const key = new ApiKey("ci", args());
        return { keyId: key.keyId, secret: key.secret };
      },
      env.stackConfig(),
    );
  }

  /** A model request with `secret`, as a service that names itself in its User-Agent. */
  async function callAs(userAgent: string, secret: string): Promise<number> {
    const response = await fetch(`${env.gateway.baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "user-agent": userAgent },
      body: JSON.stringify({ model: "echo-1", input: "ping" }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** The key's outputs in the stack's state, as the last up or refresh left them. */
  async function stateOf(stack: auto.Stack): Promise<Record<string, unknown>> {
    const deployment = await stack.exportStack();
    const keys = (deployment.deployment.resources as { type: string; outputs: Record<string, unknown> }[]).filter(
      (resource) => resource.type === "pulumi-nodejs:dynamic/gateway:ApiKey",
    );
    expect(keys).toHaveLength(1);
    return keys[0]!.outputs;
  }

  const secretOf = (result: auto.UpResult) => result.outputs.secret!.value as string;
  const flush = () => env.gateway.gateway.app.gateway.flushSecretUse();

  it("sends retireWhenIdle with the rotation, refreshes use without a diff, and warns when an update's rotation cuts off a client of the old secret", async () => {
    let trigger = 1;
    const stack = await keyStack(() => ({ rotationTrigger: trigger, rotationGracePeriod: "1h", retireWhenIdle: "15m" }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    const first = secretOf(created.result);

    // The first rotation has no previous secret to cut off: no warning.
    trigger = 2;
    const quiet = await preview(stack);
    expect(quiet.output + quiet.errors).not.toContain("still in use");
    const second = secretOf((await up(stack)).result);
    const rotated = await outside.apiKeys.get(keyId);
    expect(rotated.previousSecret).toMatchObject({ retireWhenIdleSeconds: 900, retiredAt: null, requestsSinceRotation: 0 });
    expect(Date.parse(rotated.previousSecret!.expiresAt) - Date.parse(rotated.rotatedAt!)).toBe(3_600_000);

    // Billing never redeploys: it keeps calling with the old secret, search moved to the new one.
    expect(await callAs("billing-service/1.0", first)).toBe(200);
    expect(await callAs("search-service/2.3", second)).toBe(200);
    await flush();

    // The refresh brings the use into state, and it is no change.
    await refresh(stack, { expectNoChanges: true });
    const state = await stateOf(stack);
    const previous = state.previousSecret as PreviousSecretUse;
    expect(previous).toMatchObject({ requestsSinceRotation: 1, retireWhenIdleSeconds: 900, retiredAt: null });
    expect(previous.clients.map((client) => client.userAgent)).toEqual(["billing-service/1.0"]);
    expect(state.currentSecret).toMatchObject({ clients: [expect.objectContaining({ userAgent: "search-service/2.3" })] });
    await preview(stack, { expectNoChanges: true });

    // More traffic, another refresh: still no change.
    expect(await callAs("billing-service/1.0", first)).toBe(200);
    await flush();
    await refresh(stack, { expectNoChanges: true });
    expect(((await stateOf(stack)).previousSecret as PreviousSecretUse).requestsSinceRotation).toBe(2);

    // A rotation now would end the old secret at once: the plan warns, naming billing (the engine
    // prints a warning on stderr, beside the diff on stdout), and so does the update.
    trigger = 3;
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.errors).toContain(`warning: key ${keyId}: this update rotates the key while its previous secret (${previous.hint}) is still in use`);
    expect(plan.errors).toMatch(/by "billing-service\/1\.0" from [^ ]+ \(last seen [^,]+, 2 requests\)/);
    // A warning, not a failure: the update goes ahead, and billing is cut off.
    const third = await up(stack);
    expect(third.output).toContain(`warning: key ${keyId}: this update rotates the key while its previous secret (${previous.hint}) is still in use`);
    expect(third.output).toMatch(/by "billing-service\/1\.0" from [^ ]+ \(last seen [^,]+, 2 requests\)/);
    expect(third.output).toContain("those clients get 401 invalid_credentials");
    expect(await callAs("billing-service/1.0", first)).toBe(401);
    expect(await callAs("search-service/2.3", secretOf(third.result))).toBe(200);
    await destroy(stack);
    expect([first, second].some((secret) => engineTranscript().includes(secret))).toBe(false);
  });

  it("says nothing when the previous secret went unused since the rotation", async () => {
    let trigger = 1;
    const stack = await keyStack(() => ({ rotationTrigger: trigger, rotationGracePeriod: "1h" }));
    await up(stack);
    trigger = 2;
    const second = secretOf((await up(stack)).result);
    expect(await callAs("search-service/2.3", second)).toBe(200);
    await flush();
    trigger = 3;
    const rotated = await up(stack);
    expect(rotated.result.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(rotated.output).not.toContain("still in use");
    await destroy(stack);
  });
});
