import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import type * as pulumi from "@pulumi/pulumi";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, type ApiKeyArgs, type GatewayConnectionArgs } from "@gateway-keys/provider";
import { GatewayClient } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { destroy, expectEngineFailure, occurrences, preview, refresh, setStackConfig, up, type StackConfig } from "@gateway-keys/testkit/engine";

/** What the engine prints for our failures and warnings: Pulumi terms, once, no stack trace. */
describe("ApiKey messages", () => {
  const env = useKeyTestEnvironment();

  async function keyStack(args: () => ApiKeyArgs, config: StackConfig = env.stackConfig()): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "messages",
      async () => {
        const key = new ApiKey("ci", args());
        // `connection` is a typed output: this line does not compile if it is not.
        const connection: pulumi.Output<GatewayConnectionArgs | undefined> = key.connection;
        return { keyId: key.keyId, secret: key.secret, secretKnown: key.secretKnown, hasConnection: connection.apply((c) => c !== undefined) };
      },
      config,
    );
  }

  /** The text after `Diagnostics:` in the engine's summary. */
  const diagnosticsOf = (output: string) => output.slice(output.indexOf("Diagnostics:"));

  /** No JavaScript stack frame and no class name of ours reaches the person running Pulumi. */
  function expectNoStack(text: string): void {
    expect(text).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
    expect(text).not.toContain("KeyOperationError");
    expect(text).not.toContain("Error: ");
  }

  it("fails a preview once, in Pulumi terms and without a stack trace, when the configured provisioning key is another owner's", async () => {
    const stack = await keyStack(() => ({}));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    await setStackConfig(stack, { secret: { "gateway:provisioningKey": await env.gateway.newProvisioningKey("someone-else") } });
    const failure = await expectEngineFailure(preview(stack));
    const message = `error: key ${keyId} belongs to owner test-owner, but the provisioning key configured for ${env.recorder.baseUrl} belongs to owner someone-else; nothing was changed.`;
    expect(occurrences(failure.stdout + failure.stderr, message)).toBe(1);
    expectNoStack(failure.stdout + failure.stderr);
    await setStackConfig(stack, env.stackConfig());
    await destroy(stack);
  });

  it("says what to configure, as a problem of the resource rather than of a property with no value, when no gateway is configured", async () => {
    const stack = await keyStack(() => ({}), {});
    const failure = await expectEngineFailure(preview(stack));
    const output = failure.stdout + failure.stderr;
    expect(occurrences(output, "gateway:ApiKey resource 'ci' has a problem: no gateway configured: run `pulumi config set gateway:baseUrl <url>`")).toBe(1);
    expect(output).not.toContain("{<nil>}");
    expect(output).not.toContain("property connection");
    expectNoStack(output);
  });

  describe("against a gateway that accepts connections but never answers", () => {
    let silent: Server;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      silent = createServer((socket) => void sockets.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it("fails the create within gateway:requestTimeout, saying so and that a rerun needs no clean-up", async () => {
      const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const stack = await keyStack(() => ({}), {
        plain: { "gateway:baseUrl": baseUrl, "gateway:requestTimeout": "2" },
        secret: { "gateway:provisioningKey": env.gateway.provisioningKey },
      });
      const started = Date.now();
      const failure = await expectEngineFailure(up(stack));
      const elapsedMs = Date.now() - started;
      const message =
        `could not create key "ci": the gateway at ${baseUrl} did not answer within 2 s (gateway:requestTimeout). ` +
        "Check that it is running and reachable, then run the command again. If the gateway made the key before the failure, " +
        "the next `pulumi up` takes it over instead of making a second one: there is nothing to clean up.";
      expect(occurrences(diagnosticsOf(failure.stdout), message)).toBe(1);
      expect(failure.stderr).not.toContain(message);
      expectNoStack(failure.stdout + failure.stderr);
      expect(failure.stdout).not.toContain("idempotencyKey");
      // The engine's own start and stop take a few seconds; the gateway call took two.
      expect(elapsedMs).toBeLessThan(15_000);
    });
  });

  it("names the unreachable gateway and never asks the user to repeat a call with an idempotency key", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const stack = await keyStack(() => ({}), {
      plain: { "gateway:baseUrl": baseUrl },
      secret: { "gateway:provisioningKey": env.gateway.provisioningKey },
    });
    const failure = await expectEngineFailure(up(stack));
    const message =
      `could not create key "ci": the gateway at ${baseUrl} could not be reached (ECONNREFUSED). ` +
      "Check that it is running and that gateway:baseUrl is right, then run the command again.";
    expect(occurrences(diagnosticsOf(failure.stdout), message)).toBe(1);
    expect(failure.stdout + failure.stderr).not.toMatch(/idempotency ?key/i);
    expectNoStack(failure.stdout + failure.stderr);
  });

  it("keeps the secret output after a rotation outside the stack, marks it unknown, and warns once how to fix it", async () => {
    let trigger = "1";
    const stack = await keyStack(() => ({ rotationTrigger: trigger }));
    const created = await up(stack);
    const keyId = created.result.outputs.keyId!.value as string;
    const issued = created.result.outputs.secret!.value as string;
    const outside = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
    await outside.apiKeys.rotate(keyId, { expectedVersion: 1 });
    await outside.close();

    const warning =
      `warning: key ${keyId} was rotated outside this stack: the \`secret\` output is the one this stack issued, and the gateway ` +
      "no longer accepts it (`secretKnown` is false). To hand out a working secret again, change `rotationTrigger` and run `pulumi up`";
    const refreshed = await refresh(stack);
    expect(occurrences(diagnosticsOf(refreshed.output), warning)).toBe(1);
    const again = await up(stack);
    expect(again.result.summary.resourceChanges).toEqual({ same: 2 });
    expect(again.result.outputs.secret?.value).toBe(issued);
    expect(again.result.outputs.secretKnown!.value).toBe(false);
    expect(occurrences(diagnosticsOf(again.output), warning)).toBe(1);
    expect(await env.statusWith(issued)).toBe(401);

    // The fix the warning names.
    trigger = "2";
    const fixed = await up(stack);
    expect(fixed.result.outputs.secretKnown!.value).toBe(true);
    expect(await env.statusWith(fixed.result.outputs.secret!.value as string)).toBe(200);
    expect(fixed.output).not.toContain("was rotated outside this stack");
    await destroy(stack);
  });
});
