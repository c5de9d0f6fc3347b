import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { native, type ApiKeyArgs } from "@gateway-keys/provider";
import type { WebhookEventType } from "@gateway-keys/contract";
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { destroy, engineTranscript, findLeaks, preview, runLifecycle, up, type StackConfig } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";
import { buildPluginArchive, installPlugin, PLUGIN_VERSION, pulumiCli } from "./support/native-plugin";
import { expectWebhookAndKeyChangedInPlace } from "./support/webhook-changes";

/**
 * `gatewaykeys:index:ApiKey` through the real engine and the native plugin installed from its
 * release archive into each sandbox's empty PULUMI_HOME, against the real gateway over HTTP.
 */
describe("native plugin gatewaykeys", () => {
  const env = useKeyTestEnvironment();
  let archive: string;
  beforeAll(async () => {
    archive = await buildPluginArchive();
  }, 120_000);
  beforeEach(() => installPlugin(env.sandbox, archive));

  const nativeConfig = (): StackConfig => ({
    plain: { "gatewaykeys:baseUrl": env.recorder.baseUrl },
    secret: { "gatewaykeys:provisioningKey": env.gateway.provisioningKey },
  });

  /** A stack whose program declares one native key with whatever `args()` and `options()` say at the time of the run. */
  async function keyStack(args: () => ApiKeyArgs, options: () => { replaceOnChanges?: string[] } = () => ({})): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "native-keys",
      async () => {
        const key = new native.ApiKey("ci", args(), options());
        return { keyId: key.keyId, secret: key.secret, version: key.version, urn: key.urn };
      },
      nativeConfig(),
    );
  }

  const client = () => new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });

  it("passes the full cycle; the secret is a Pulumi secret, the key carries its URN, nothing secret lands on disk", async () => {
    let args: ApiKeyArgs = { spendPolicy: { limitUnits: "100" } };
    const stack = await keyStack(() => args);
    let secret = "";
    await runLifecycle(stack, {
      async afterCreate(result) {
        secret = result.outputs.secret!.value as string;
        expect(result.outputs.secret!.secret).toBe(true);
        expect(await env.statusWith(secret)).toBe(200);
        expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys"]);
        const live = await client().apiKeys.get(result.outputs.keyId!.value as string);
        expect(live.clientReference).toBe(result.outputs.urn!.value);
        expect(live.clientReference).toMatch(/::gatewaykeys:index:ApiKey::ci$/);
      },
      edit: {
        async apply() {
          args = { spendPolicy: { limitUnits: "250.5" } };
          env.recorder.reset();
        },
        verify(result) {
          expect(env.recorder.calls()).toEqual(["PATCH /v1/account/api-keys/{id}"]);
          expect(result.outputs.version!.value).toBe(2);
          expect(result.outputs.secret!.value).toBe(secret);
        },
      },
    });
    expect(await env.statusWith(secret)).toBe(401);
    expect(await findLeaks(env.sandbox.backendDir, { secret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
    expect(engineTranscript()).not.toContain(secret);
    expect(engineTranscript()).not.toContain(env.gateway.provisioningKey);
  });

  it("replaces the key when a policy named in replaceOnChanges changes: the plan says replace, the old key is revoked, the new one works", async () => {
    let modelIds = ["echo-1"];
    const stack = await keyStack(
      () => ({ modelPolicy: { mode: "allowList", modelIds } }),
      () => ({ replaceOnChanges: ["modelPolicy"] }),
    );
    const first = await up(stack);
    const oldKeyId = first.result.outputs.keyId!.value as string;
    const oldSecret = first.result.outputs.secret!.value as string;

    modelIds = ["echo-1", "reverse-1"];
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ replace: 1 });
    expect(plan.output).toMatch(/\+-gatewaykeys:index:ApiKey: \(replace\)\s+\[id=\w+\]\s+\[urn=\S+::ci\]/);
    expect(plan.output).toMatch(/~ modelPolicy/);

    env.recorder.reset();
    const replaced = await up(stack);
    const newKeyId = replaced.result.outputs.keyId!.value as string;
    const newSecret = replaced.result.outputs.secret!.value as string;
    expect(newKeyId).not.toBe(oldKeyId);
    // Revoked first, then created: a create first would meet the old key under the same URN.
    expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/revoke", "POST /v1/account/api-keys"]);
    expect(await env.statusWith(oldSecret)).toBe(401);
    expect(await env.statusWith(newSecret, "reverse-1")).toBe(200);
    await preview(stack, { expectNoChanges: true });
    await destroy(stack);
    expect(await findLeaks(env.sandbox.backendDir, { oldSecret, newSecret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
  });

  it("shows a rotation in the plan as an in-place update of secret beside the rotationTrigger change, and rotates once", async () => {
    let trigger = "2026-11";
    const stack = await keyStack(() => ({ rotationTrigger: trigger }));
    const first = await up(stack);
    const oldSecret = first.result.outputs.secret!.value as string;

    trigger = "2026-12";
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 1 });
    expect(plan.result.changeSummary.replace ?? 0).toBe(0);
    expect(plan.output).toMatch(/~\s+rotationTrigger\s*:\s*"2026-11"\s*=>\s*"2026-12"/);
    // The secret is rotated: the engine shows it as not known until the update.
    expect(plan.output).toMatch(/~\s+secret\s*:\s*\[secret\]\s*=>\s*\[unknown\]/);

    env.recorder.reset();
    const rotated = await up(stack);
    expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/rotate"]);
    const newSecret = rotated.result.outputs.secret!.value as string;
    expect(rotated.result.outputs.keyId!.value).toBe(first.result.outputs.keyId!.value);
    expect(await env.statusWith(oldSecret)).toBe(401);
    expect(await env.statusWith(newSecret)).toBe(200);
    await preview(stack, { expectNoChanges: true });
    await destroy(stack);
    expect(await findLeaks(env.sandbox.backendDir, { oldSecret, newSecret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
  });

  it("starts and serves even when the folder the engine started it in is removed (it runs from its own folder)", async () => {
    // The engine runs a plugin in the program's folder; the inline programs' folders of a test run
    // can be swept by a concurrent run. Loading @pulumi/pulumi reads the working folder, which
    // crashed the plugin before it served: "pulumi-resource-gatewaykeys exited prematurely".
    const plugin = join(env.sandbox.env.PULUMI_HOME!, "plugins", `resource-gatewaykeys-v${PLUGIN_VERSION}`, "pulumi-resource-gatewaykeys");
    const gone = await mkdtemp(join(tmpdir(), "gatewaykeys-gone-"));
    const child = spawn("sh", ["-c", 'cd "$1" && rmdir "$1" && exec "$2" 127.0.0.1:1', "sh", gone, plugin], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
      const [firstLine] = await Promise.race([
        once(createInterface({ input: child.stdout }), "line") as Promise<string[]>,
        once(child, "exit").then(([code]) => Promise.reject(new Error(`the plugin exited with ${code}: ${stderr.slice(-2000)}`))),
      ]);
      expect(firstLine).toMatch(/^\d+$/); // the port it serves on, as the engine reads it
      expect(existsSync(gone)).toBe(false);
    } finally {
      child.kill();
    }
  });

  it("imports a key made through the account API with `pulumi import --generate-code=false`; the next preview shows no changes", async () => {
    const { secret, ...made } = await client().apiKeys.create({ name: "legacy", spendPolicy: { limitUnits: "50" } });
    const stack = await env.sandbox.inlineStack(
      "native-import",
      async () => {
        const key = new native.ApiKey("legacy", { name: "legacy", spendPolicy: { limitUnits: "50" } });
        return { keyId: key.keyId, secretKnown: key.secretKnown };
      },
      nativeConfig(),
    );
    const imported = await pulumiCli(
      env.sandbox,
      ["import", "gatewaykeys:index:ApiKey", "legacy", made.keyId, "--generate-code=false", "--yes", "--stack", stack.name, "--non-interactive"],
      stack.workspace.workDir,
    );
    const said = imported.stdout + imported.stderr;
    expect(said).toMatch(/imported key key_\w+: its secret is unknown to the stack/);
    expect(said).toContain('new native.ApiKey("legacy", {');
    expect(said).toContain('spendPolicy: {"currency":"unit","limitUnits":"50","resetPeriod":"never"},');

    await preview(stack, { expectNoChanges: true });
    env.recorder.reset();
    const adopted = await up(stack);
    expect(adopted.result.outputs.keyId!.value).toBe(made.keyId);
    expect(adopted.result.outputs.secretKnown!.value).toBe(false);
    expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
    await destroy(stack);
    expect(await env.statusWith(secret)).toBe(401);
    expect(said).not.toContain(secret);
    expect(await findLeaks(env.sandbox.backendDir, { secret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
  });

  it("declares an endpoint and a key's thresholds, changes both in place, imports an endpoint made outside; the signing secret stays a secret", async () => {
    let events: WebhookEventType[] = ["key.budget_threshold"];
    let thresholds = [0.5, 1];
    const stack = await env.sandbox.inlineStack(
      "native-webhooks",
      async () => {
        const alerts = new native.Webhook("alerts", { url: "https://hooks.example.com/gateway", events });
        const key = new native.ApiKey("alerted", { spendPolicy: { limitUnits: "100" }, budgetAlertThresholds: thresholds, expiryWarning: "7d", expiresAt: "2099-01-01T00:00:00Z" });
        return { webhookId: alerts.webhookId, signingSecret: alerts.signingSecret, keyId: key.keyId };
      },
      nativeConfig(),
    );
    const created = await up(stack);
    const webhookId = created.result.outputs.webhookId!.value as string;
    const signingSecret = created.result.outputs.signingSecret!.value as string;
    expect(created.result.outputs.signingSecret!.secret).toBe(true);
    expect(await client().apiKeys.get(created.result.outputs.keyId!.value as string)).toMatchObject({ budgetAlertThresholds: [0.5, 1], expiryWarningSeconds: 604_800 });

    events = ["key.budget_threshold", "key.expiring"];
    thresholds = [0.8];
    const changed = await expectWebhookAndKeyChangedInPlace(stack, env.recorder);
    expect(changed.result.outputs.webhookId!.value).toBe(webhookId);
    expect(changed.result.outputs.signingSecret!.value).toBe(signingSecret);
    await preview(stack, { expectNoChanges: true });
    await destroy(stack);
    expect(await findLeaks(env.sandbox.backendDir, { signingSecret, provisioningKey: env.gateway.provisioningKey })).toEqual([]);

    // An endpoint made through the account API, imported: its secret is not the stack's to know.
    const { secret: outsideSecret, ...made } = await client().webhooks.create({ url: "https://hooks.example.com/legacy", events: ["key.expired"] });
    const imports = await env.sandbox.inlineStack(
      "native-webhook-import",
      async () => {
        const legacy = new native.Webhook("legacy", { url: "https://hooks.example.com/legacy", events: ["key.expired"] });
        return { webhookId: legacy.webhookId, signingSecretKnown: legacy.signingSecretKnown };
      },
      nativeConfig(),
    );
    const imported = await pulumiCli(
      env.sandbox,
      ["import", "gatewaykeys:index:Webhook", "legacy", made.webhookId, "--generate-code=false", "--yes", "--stack", imports.name, "--non-interactive"],
      imports.workspace.workDir,
    );
    const said = imported.stdout + imported.stderr;
    expect(said).toMatch(/imported webhook wh_\w+: its signing secret is unknown to the stack/);
    expect(said).toContain('new native.Webhook("legacy", {');
    await preview(imports, { expectNoChanges: true });
    const adopted = await up(imports);
    expect(adopted.result.outputs.webhookId!.value).toBe(made.webhookId);
    expect(adopted.result.outputs.signingSecretKnown!.value).toBe(false);
    await destroy(imports);
    await expect(client().webhooks.get(made.webhookId)).rejects.toBeInstanceOf(NotFoundError);
    expect(said).not.toContain(outsideSecret);
    for (const secret of [signingSecret, outsideSecret]) expect(engineTranscript()).not.toContain(secret);
  });
});
