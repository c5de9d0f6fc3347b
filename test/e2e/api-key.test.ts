import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs } from "@gateway-keys/provider";
import { useKeyTestEnvironment } from "./fixture";
import { destroy, engineTranscript, findLeaks, preview, runLifecycle, storedResources, up } from "@gateway-keys/testkit/engine";

/** ApiKey through the real engine (inline programs), against the real gateway over HTTP. */
describe("ApiKey", () => {
  const env = useKeyTestEnvironment();

  /** A stack whose program declares one key with whatever `args()` says at the time of the run. */
  async function keyStack(args: () => ApiKeyArgs): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "keys",
      async () => {
        const key = new ApiKey("ci", args());
        return { keyId: key.keyId, secret: key.secret, version: key.version, hint: key.hint };
      },
      env.stackConfig(),
    );
  }

  it("passes the full cycle; a policy change sends exactly one PATCH; nothing secret lands on disk", async () => {
    let args: ApiKeyArgs = { spendPolicy: { limitUnits: "100" } };
    const stack = await keyStack(() => args);
    let secret = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        secret = result.outputs.secret!.value as string;
        expect(result.outputs.secret!.secret).toBe(true);
        expect(await env.statusWith(secret)).toBe(200);
        expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys"]);
        env.recorder.reset();
      },
      edit: {
        async apply() {
          args = { spendPolicy: { limitUnits: "250.5" }, loggingPolicy: { retentionDays: 7 } };
          env.recorder.reset();
        },
        verify(result) {
          expect(env.recorder.calls()).toEqual(["PATCH /v1/account/api-keys/{id}"]);
          expect(result.outputs.version!.value).toBe(2);
          expect(result.outputs.secret!.value).toBe(secret);
        },
      },
    });
    expect(env.recorder.calls().filter((call) => call.startsWith("POST") && call.endsWith("/revoke"))).toHaveLength(1);
    expect(await env.statusWith(secret)).toBe(401);
    expect(await findLeaks(env.sandbox.backendDir, { secret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
    expect(engineTranscript()).not.toContain(secret);
    expect(engineTranscript()).not.toContain(env.gateway.provisioningKey);
  });

  it("rotates in place when rotationTrigger changes: one rotate, same keyId, the old secret stops working", async () => {
    let trigger = "2026-11";
    const stack = await keyStack(() => ({ rotationTrigger: trigger }));
    const first = await up(stack);
    const oldSecret = first.result.outputs.secret!.value as string;
    const keyId = first.result.outputs.keyId!.value as string;

    trigger = "2026-12";
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.result.changeSummary.replace ?? 0).toBe(0);
    expect(plan.output).toMatch(/~\s+rotationTrigger\s*:\s*"2026-11"\s*=>\s*"2026-12"/);

    env.recorder.reset();
    const rotated = await up(stack);
    expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/rotate"]);
    const newSecret = rotated.result.outputs.secret!.value as string;
    expect(rotated.result.outputs.keyId!.value).toBe(keyId);
    expect(newSecret).not.toBe(oldSecret);
    expect(await env.statusWith(oldSecret)).toBe(401);
    expect(await env.statusWith(newSecret)).toBe(200);
    await preview(stack, { expectNoChanges: true });
    expect(await findLeaks(env.sandbox.backendDir, { oldSecret, newSecret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
    await destroy(stack);
  });

  it("makes no gateway request for an up with no changes", async () => {
    const stack = await keyStack(() => ({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } }));
    await up(stack);
    env.recorder.reset();
    const again = await up(stack);
    expect(again.result.summary.resourceChanges).toEqual({ same: 2 });
    expect(env.recorder.calls()).toEqual([]);
    await destroy(stack);
  });

  it("keeps each key's state under 3 KB in the backend file, __provider included", async () => {
    const stack = await keyStack(() => ({ spendPolicy: { limitUnits: "100" }, rotationTrigger: 1 }));
    await up(stack);
    const keys = (await storedResources(env.sandbox.backendDir)).filter((r) => r.type.endsWith("gateway:ApiKey"));
    expect(keys).toHaveLength(1);
    expect(Buffer.byteLength(JSON.stringify(keys[0]))).toBeLessThanOrEqual(3 * 1024);
    expect(String(keys[0]!.outputs!.__provider).length).toBeLessThanOrEqual(200);
    await destroy(stack);
  });

  it("makes a new key and revokes the old one on a forced replacement (`pulumi up --replace`), the documented stand-in for replaceOnChanges", async () => {
    // A project of its own: its URN (the key's client reference) is new to this file's gateway.
    const stack = await env.sandbox.inlineStack(
      "replace",
      async () => {
        const key = new ApiKey("ci", { spendPolicy: { limitUnits: "100" } });
        return { keyId: key.keyId, secret: key.secret };
      },
      env.stackConfig(),
    );
    const first = await up(stack);
    const oldSecret = first.result.outputs.secret!.value as string;
    const urn = `urn:pulumi:${stack.name}::replace::pulumi-nodejs:dynamic/gateway:ApiKey::ci`;
    env.recorder.reset();
    const replaced = await up(stack, { replace: [urn] });
    expect(replaced.result.summary.resourceChanges).toMatchObject({ replace: 1 });
    // The old key is revoked first. The create, with the old one's body, gets the old answer replayed;
    // that key is revoked, so the next create (its Idempotency-Key derived from the revoked key) makes a new one.
    expect(env.recorder.calls()).toEqual([
      "POST /v1/account/api-keys/{id}/revoke",
      "POST /v1/account/api-keys",
      "GET /v1/account/api-keys/{id}",
      "POST /v1/account/api-keys",
    ]);
    const newSecret = replaced.result.outputs.secret!.value as string;
    expect(replaced.result.outputs.keyId!.value).not.toBe(first.result.outputs.keyId!.value);
    expect(await env.statusWith(oldSecret)).toBe(401);
    expect(await env.statusWith(newSecret)).toBe(200);
    await preview(stack, { expectNoChanges: true });
    await destroy(stack);
    expect(await env.statusWith(newSecret)).toBe(401);
  });
});
