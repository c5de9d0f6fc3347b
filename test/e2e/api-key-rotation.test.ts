import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { ApiKey, ApiKeyPair, type ApiKeyArgs } from "@gateway-keys/provider";
import { GatewayClient } from "@gateway-keys/sdk";
import { useKeyTestEnvironment } from "./fixture";
import { startSeedOnlyGateway } from "./support/seed-only-gateway";
import { startTraffic, type TrafficReport } from "./support/traffic";
import { destroy, engineTranscript, expectEngineFailure, findLeaks, occurrences, preview, refresh, up, type StackConfig } from "@gateway-keys/testkit/engine";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Zero-downtime and scheduled rotation through the real engine, against the real gateway. */
describe("ApiKey rotation", () => {
  /** Time that has passed on the gateway beyond real time: tests move it instead of sleeping. */
  let passed = 0;
  const env = useKeyTestEnvironment({ clock: () => new Date(Date.now() + passed) });

  function keyStack(args: () => ApiKeyArgs, config: StackConfig = env.stackConfig()): Promise<auto.Stack> {
    return env.sandbox.inlineStack(
      "rotation",
      async () => {
        const key = new ApiKey("ci", args());
        return { keyId: key.keyId, secret: key.secret, version: key.version };
      },
      config,
    );
  }

  const secretOf = (result: auto.UpResult) => result.outputs.secret!.value as string;

  /**
   * Makes the stack's key look issued `age` ago: moves `rotation.issuedAt` back in the stack's state
   * file, inputs and outputs alike, as the days passing would leave it. The plugin process measures
   * rotateAfter against the system clock, which no environment variable moves; the secret's issue
   * time is what the test controls instead. Returns the instant written.
   */
  async function secretIssuedAgo(stack: auto.Stack, age: number): Promise<string> {
    const file = join(env.sandbox.backendDir, ".pulumi", "stacks", "rotation", `${stack.name}.json`);
    const state = JSON.parse(await readFile(file, "utf8"));
    const keys = state.checkpoint.latest.resources.filter((resource: { type: string }) => resource.type === "pulumi-nodejs:dynamic/gateway:ApiKey");
    expect(keys).toHaveLength(1);
    const issuedAt = new Date(Date.now() - age).toISOString();
    for (const properties of [keys[0].inputs, keys[0].outputs]) {
      expect(properties.rotation).toEqual({ issuedAt: expect.any(String), reason: expect.any(String) });
      properties.rotation.issuedAt = issuedAt;
    }
    await writeFile(file, JSON.stringify(state, null, 4));
    return issuedAt;
  }
  const rotations = () => env.recorder.calls().filter((call) => call.endsWith("/rotate")).length;
  /** Waits until the traffic has sent `count` more requests (a few seconds at most). */
  const requestsPass = async (sent: () => number, count: number) => {
    const target = sent() + count;
    const deadline = Date.now() + 30_000;
    while (sent() < target) {
      if (Date.now() > deadline) throw new Error(`the traffic stalled at ${sent()} requests`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  /**
   * Runs `rotate` (`up`s that rotate) while a client sends requests without pause with the secret
   * the stack last exported; the client switches to each new secret once an `up` has returned it
   * (`rotate` publishes it, or returns the last one).
   */
  async function underTraffic(first: string, rotate: (publish: (secret: string) => void) => Promise<string>): Promise<TrafficReport> {
    let exported = first;
    let sent = 0;
    const traffic = startTraffic(env.gateway.baseUrl, () => {
      sent++;
      return exported;
    });
    let failure: unknown;
    try {
      await requestsPass(() => sent, 20);
      exported = await rotate((secret) => {
        exported = secret;
      });
      await requestsPass(() => sent, 20);
    } catch (error) {
      failure = error;
    }
    // Stopped whatever happened, so a failing test never leaves the client running.
    const report = await traffic.stop();
    if (failure !== undefined) throw failure;
    return report;
  }

  it("rotates with a grace period under continuous traffic with no failed request; the old secret gets 401 once the grace is over", async () => {
    let trigger = 1;
    const stack = await keyStack(() => ({ rotationTrigger: trigger, rotationGracePeriod: "1h" }));
    const first = secretOf((await up(stack)).result);
    trigger = 2;
    let second = "";
    const report = await underTraffic(first, async () => {
      second = secretOf((await up(stack)).result);
      return second;
    });
    console.log(`rotation with rotationGracePeriod 1h under traffic: ${report.sent} requests sent, ${report.failed} failed`);
    expect(report).toMatchObject({ failed: 0, failures: [] });
    expect(report.sent).toBeGreaterThan(40);
    expect(second).not.toBe(first);

    expect(await env.statusWith(first)).toBe(200);
    passed += HOUR - 60_000;
    expect(await env.statusWith(first)).toBe(200);
    passed += 61_000;
    expect(await env.statusWith(first)).toBe(401);
    expect(await env.statusWith(second)).toBe(200);
    await destroy(stack);
    expect(await findLeaks(env.sandbox.backendDir, { first, second, provisioningKey: env.gateway.provisioningKey })).toEqual([]);
    expect([first, second].some((secret) => engineTranscript().includes(secret))).toBe(false);
  });

  it("without a grace period, the same traffic sees the old secret refused: the control of the test above", async () => {
    let trigger = 1;
    const stack = await keyStack(() => ({ rotationTrigger: trigger }));
    const first = secretOf((await up(stack)).result);
    trigger = 2;
    const report = await underTraffic(first, async () => secretOf((await up(stack)).result));
    expect(report.failed).toBeGreaterThan(0);
    expect(new Set(report.failures)).toEqual(new Set([401]));
    await destroy(stack);
  });

  it("rotates on schedule exactly once per due date: shown at preview only when due, never a replacement, no drift on refresh", async () => {
    const stack = await keyStack(() => ({ rotateAfter: "30d" }));
    let secret = secretOf((await up(stack)).result);

    /** Checks that nothing is due for a secret issued `age` ago: no change in preview, up and refresh, and no request but refresh's read. */
    const nothingDue = async (age: number) => {
      await secretIssuedAgo(stack, age);
      await preview(stack, { expectNoChanges: true });
      env.recorder.reset();
      const same = await up(stack);
      expect(same.result.summary.resourceChanges).toEqual({ same: 2 });
      expect(env.recorder.calls()).toEqual([]);
      await refresh(stack, { expectNoChanges: true });
    };
    /** Checks the rotation due for a secret issued `age` ago: named in the preview, one rotate at up, and nothing more right after. */
    const rotatesOnce = async (age: number) => {
      const issued = await secretIssuedAgo(stack, age);
      const plan = await preview(stack);
      expect(plan.result.changeSummary).toEqual({ same: 1, update: 1 });
      // The rotation is named, with the secret it replaces, and the secret shows as unknown.
      const reason = `scheduled: the secret issued ${issued} reached rotateAfter 30d`;
      expect(plan.output).toMatch(new RegExp(`~ reason\\s+: "[^"]*" => "${reason.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`));
      expect(plan.output).toMatch(/\+ secret\s+: \[unknown\]/);
      env.recorder.reset();
      const rotated = await up(stack);
      expect(env.recorder.calls()).toEqual(["POST /v1/account/api-keys/{id}/rotate"]);
      const next = secretOf(rotated.result);
      expect(next).not.toBe(secret);
      expect(await env.statusWith(next)).toBe(200);
      expect(await env.statusWith(secret)).toBe(401);
      secret = next;
      // Again right away: the due date has been served (the rotation issued the new secret now).
      env.recorder.reset();
      await up(stack);
      expect(rotations()).toBe(0);
      await preview(stack, { expectNoChanges: true });
      await refresh(stack, { expectNoChanges: true });
    };

    await nothingDue(30 * DAY - HOUR);
    await rotatesOnce(30 * DAY);
    await nothingDue(30 * DAY - HOUR);
    await rotatesOnce(30 * DAY);
    // Many periods without a run: one rotation, not one per period missed.
    await rotatesOnce(140 * DAY);
    await nothingDue(29 * DAY);
    await destroy(stack);
  });

  it("ApiKeyPair keeps continuous traffic working across two generations on a gateway with only the seed's rotation", async () => {
    const seedOnly = await startSeedOnlyGateway(env.gateway.baseUrl);
    try {
      let generation = 0;
      const stack = await env.sandbox.inlineStack(
        "pair",
        async () => {
          const pair = new ApiKeyPair("ci", { generation, spendPolicy: { limitUnits: "1000" } });
          return { secret: pair.secret, current: pair.current };
        },
        { plain: { "gateway:baseUrl": seedOnly.baseUrl }, secret: { "gateway:provisioningKey": env.gateway.provisioningKey } },
      );
      const created = await up(stack);
      expect(created.result.outputs.secret!.secret).toBe(true);
      const generations = [secretOf(created.result)];
      const report = await underTraffic(generations[0]!, async (publish) => {
        for (generation = 1; generation <= 2; generation++) {
          const rolled = await up(stack);
          expect(rolled.result.outputs.current!.value).toBe(generation % 2 === 0 ? "a" : "b");
          generations.push(secretOf(rolled.result));
          publish(secretOf(rolled.result));
        }
        return generations[2]!;
      });
      console.log(`ApiKeyPair across two generations under traffic: ${report.sent} requests sent, ${report.failed} failed`);
      expect(report).toMatchObject({ failed: 0, failures: [] });
      // Generation 2 rotated key a: generation 0's secret is gone; generation 1's still works.
      expect(await env.statusWith(generations[0]!)).toBe(401);
      expect(await env.statusWith(generations[1]!)).toBe(200);
      expect(await env.statusWith(generations[2]!)).toBe(200);
      await destroy(stack);
    } finally {
      await seedOnly.close();
    }
  });

  it("refuses a grace period on a gateway without rotation_grace, saying what to do, and rotates nothing", async () => {
    const seedOnly = await startSeedOnlyGateway(env.gateway.baseUrl);
    try {
      let trigger = 1;
      const stack = await keyStack(() => ({ rotationTrigger: trigger, rotationGracePeriod: "1h" }), {
        plain: { "gateway:baseUrl": seedOnly.baseUrl },
        secret: { "gateway:provisioningKey": env.gateway.provisioningKey },
      });
      const created = await up(stack);
      const keyId = created.result.outputs.keyId!.value as string;
      trigger = 2;
      const failure = await expectEngineFailure(up(stack));
      const message =
        `key ${keyId}: the gateway at ${seedOnly.baseUrl} cannot rotate with a grace period (it lacks the rotation_grace extension), ` +
        "so the rotation was not made. Remove `rotationGracePeriod` (the old secret then stops at once), or manage the key " +
        "with `ApiKeyPair`, which overlaps two keys on any gateway.";
      const diagnostics = failure.stdout.slice(failure.stdout.indexOf("Diagnostics:"));
      expect(occurrences(diagnostics, message)).toBe(1);
      expect(failure.stdout + failure.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      const outside = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
      expect(await outside.apiKeys.get(keyId)).toMatchObject({ version: 1, rotatedAt: null });
      await outside.close();
      trigger = 1;
      await destroy(stack);
    } finally {
      await seedOnly.close();
    }
  });
});
