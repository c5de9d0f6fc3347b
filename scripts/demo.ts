/**
 * `npm run demo`: gateway keys as code, end to end, in about a minute.
 *
 * Starts the gateway on 127.0.0.1 (ephemeral port, SQLite in a temp folder, a fresh provisioning
 * key), then runs the root quickstart project (../Pulumi.yaml) through the real Pulumi engine on a
 * throw-away `file://` backend: preview, up, a model request with the new key, a policy change, a
 * rotation, destroy. Every step checks what it claims; the first failed check stops the demo with
 * exit code 1. Secrets are never printed, only their hints. Everything it made is removed at the
 * end, whether it passed or not.
 *
 * It ends by printing the web console's address for the demo's key. With `--keep`
 * (`npm run demo -- --keep`) the gateway stays up until Ctrl-C, so the console can be opened; the
 * provisioning key to sign in with is then in a file readable only by you (it is never printed).
 *
 * Run with Node >= 22 from the repository root: `npm run demo` (or `node scripts/demo.ts` with the
 * toolchain on PATH).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as auto from "@pulumi/pulumi/automation/index.js";
import { hintOf, spendWindowsOf } from "@gateway-keys/contract";
import { startGateway, type RunningGateway } from "@gateway-keys/gateway";
import { APIError, GatewayClient, outputText } from "@gateway-keys/sdk";
import { EngineSandbox, REPO_ROOT, destroy, preview, setStackConfig, up } from "@gateway-keys/testkit/engine";
import { describeChange, planOf, type PlannedChange } from "./demo/plan.ts";

const PROJECT = "gateway-keys-quickstart";
const MODEL = "echo-1";

/** A claim of the demo that did not hold. */
class CheckFailed extends Error {}
/** Ctrl-C: stop before the next engine operation, then clean up. */
class Interrupted extends Error {}

function check(condition: boolean, claim: string): asserts condition {
  if (!condition) throw new CheckFailed(claim);
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const detail = (line: string) => say(`   ${line}`);

interface KeyOutputs {
  keyId: string;
  version: number;
  hint: string;
  secret: string;
}

function keyOutputs(result: auto.UpResult): KeyOutputs {
  const value = (name: string) => result.outputs[name]?.value;
  check(result.outputs.secret?.secret === true, "the stack output `secret` is a Pulumi secret");
  const outputs = { keyId: value("keyId"), version: value("version"), hint: value("hint"), secret: value("secret") };
  check(typeof outputs.keyId === "string" && typeof outputs.secret === "string", "up exported the key's id and secret");
  check(outputs.hint === hintOf(outputs.secret), "the exported hint is the secret's hint");
  return outputs as KeyOutputs;
}

async function main(): Promise<void> {
  const started = Date.now();
  const keep = process.argv.includes("--keep");
  const scratch = mkdtempSync(join(tmpdir(), "gateway-keys-demo-"));
  let gateway: RunningGateway | undefined;
  let sandbox: EngineSandbox | undefined;
  let stack: auto.Stack | undefined;
  let step = "start";
  let interrupted = false;
  // `on`, not `once`: execa's exit hook re-raises the signal (killing us before the cleanup) when
  // it finds no other listener left. A second Ctrl-C quits at once.
  let release: (() => void) | undefined;
  process.on("SIGINT", () => {
    if (release) return release();
    if (interrupted) process.exit(130);
    interrupted = true;
    say("\ninterrupted: stopping after this step, then cleaning up (Ctrl-C again to quit at once)");
  });

  try {
    gateway = await startGateway({ port: 0, host: "127.0.0.1", dbPath: join(scratch, "gateway.db"), bootstrap: { ownerId: "demo" }, console: true });
    const provisioningKey = gateway.provisioningKey!;
    const client = new GatewayClient({ baseUrl: gateway.url, provisioningKey });
    /** HTTP status of a model request with `secret`: 200 while the key works, 401 once rotated away or revoked. */
    const statusWith = async (secret: string): Promise<number> => {
      try {
        await client.responses.create({ model: MODEL, input: "ping" }, { apiKey: secret, maxRetries: 0 });
        return 200;
      } catch (error) {
        if (error instanceof APIError) return error.status;
        throw error;
      }
    };

    sandbox = await EngineSandbox.create({ PULUMI_CONFIG_PASSPHRASE: randomBytes(24).toString("base64url") });
    stack = await sandbox.projectStack(".", {
      plain: { "gateway:baseUrl": gateway.url },
      secret: { "gateway:provisioningKey": provisioningKey },
    }, "demo");
    const engine = stack;
    const planned = async (): Promise<PlannedChange[]> => {
      const events: auto.EngineEvent[] = [];
      await preview(engine, { onEvent: (event) => events.push(event) });
      return planOf(events);
    };
    /** Starts a numbered step, unless Ctrl-C asked to stop. */
    const begin = (number: string, title: string) => {
      if (interrupted) throw new Interrupted();
      step = number;
      say(`${number}. ${title}`);
    };

    say("Gateway keys as code: one API key, managed by the real Pulumi engine\n");
    detail(`gateway  ${gateway.url}  owner "demo", provisioning key ${hintOf(provisioningKey)}`);
    detail(`project  Pulumi.yaml + quickstart/index.ts, stack "${stack.name}" on a temporary local backend\n`);

    begin("1", "pulumi preview: the plan");
    const creation = await planned();
    for (const change of creation) detail(describeChange(change));
    check(creation.length === 1 && creation[0]!.op === "create" && creation[0]!.type === "ApiKey", "the plan creates exactly one ApiKey");

    begin("2", "pulumi up: the key is created");
    const created = (await up(engine)).result;
    check(created.summary.resourceChanges?.create === 2, "up created the stack and the key");
    const first = keyOutputs(created);
    check(first.version === 1, "a new key is at version 1");
    detail(`${first.keyId}, version 1, secret ${first.hint} (stored encrypted, as a secret stack output)`);

    begin("3", `the key calls a model: POST /v1/responses (${MODEL})`);
    const answer = await client.responses.create({ model: MODEL, input: "hello from the demo" }, { apiKey: first.secret });
    const text = outputText(answer);
    check(typeof text === "string" && text.includes("hello from the demo"), "the model echoed the input");
    detail(`200 "${text}"`);

    begin("4", "policy change: pulumi config set limitUnits 250");
    await setStackConfig(engine, { plain: { [`${PROJECT}:limitUnits`]: "250" } });
    const policy = await planned();
    for (const change of policy) detail(`preview  ${describeChange(change)}`);
    check(policy.length === 1 && policy[0]!.op === "update", "the plan updates the key in place");
    check(policy[0]!.changed.map((input) => input.path).join() === "spendPolicy.limitUnits", "the only changed input is spendPolicy.limitUnits");
    const changed = keyOutputs((await up(engine)).result);
    check(changed.keyId === first.keyId && changed.secret === first.secret, "the key and its secret stay");
    check(changed.version === 2, "the version went from 1 to 2");
    const live = await client.apiKeys.get(first.keyId);
    const [cap] = spendWindowsOf(live.spendPolicy);
    check(cap?.limitUnits === "250", "the gateway caps the key at 250 units");
    detail(`up       version 1 -> 2, same key and secret; the gateway caps it at ${cap!.limitUnits} units`);

    begin("5", "rotation: pulumi config set rotation 2");
    await setStackConfig(engine, { plain: { [`${PROJECT}:rotation`]: "2" } });
    const rotation = await planned();
    for (const change of rotation) detail(`preview  ${describeChange(change)} (a rotation, not a replacement)`);
    check(rotation.length === 1 && rotation[0]!.op === "update", "the plan rotates in place: an update, not a replacement");
    const rotationInputs = rotation[0]!.changed;
    check(rotationInputs.map((input) => input.path).join() === "rotationTrigger,secret", "the plan changes rotationTrigger and nothing else but the secret");
    check(rotationInputs[1]!.to === "[unknown]", "the plan shows the new secret as unknown until up");
    const rotated = keyOutputs((await up(engine)).result);
    check(rotated.keyId === first.keyId, "the keyId stays");
    check(rotated.secret !== first.secret, "the secret is new");
    check(rotated.version === 3, "the version went from 2 to 3");
    detail(`up       same key ${rotated.keyId}, version 2 -> 3, new secret ${rotated.hint}`);
    const [oldStatus, newStatus] = [await statusWith(first.secret), await statusWith(rotated.secret)];
    detail(`         old secret ${first.hint} -> ${oldStatus}, new secret ${rotated.hint} -> ${newStatus}`);
    check(oldStatus === 401, "the old secret is refused with 401");
    check(newStatus === 200, "the new secret works");

    begin("6", "pulumi destroy: the key is revoked");
    const destroyed = (await destroy(engine)).result;
    check(destroyed.summary.resourceChanges?.delete === 2, "destroy deleted the key and the stack");
    const afterRevoke = await statusWith(rotated.secret);
    const revoked = await client.apiKeys.get(first.keyId);
    detail(`secret ${rotated.hint} -> ${afterRevoke}; the gateway lists ${revoked.keyId} as ${revoked.state}`);
    check(afterRevoke === 401, "the revoked key's secret is refused with 401");
    check(revoked.state === "revoked", "the gateway shows the key as revoked");

    step = "done";
    say(`\nDone in ${Math.round((Date.now() - started) / 1000)} s: every step checked. Next: examples/README.md`);
    const consoleUrl = `${gateway.url}/console#/keys/${first.keyId}`;
    if (keep) {
      const keyFile = join(scratch, "provisioning-key");
      writeFileSync(keyFile, `${provisioningKey}\n`, { mode: 0o600 });
      say(`\nconsole  ${consoleUrl}`);
      detail(`sign in with the provisioning key in ${keyFile} (readable only by you); Ctrl-C stops the gateway and removes it`);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    } else {
      say(`\nconsole  ${consoleUrl}  (the gateway stops now; \`npm run demo -- --keep\` keeps it up to browse the console)`);
    }
  } catch (error) {
    const where = /^\d$/.test(step) ? `step ${step}` : step;
    if (interrupted || error instanceof Interrupted) {
      process.exitCode = 130;
      say(`\nStopped at ${where}.`);
    } else {
      process.exitCode = 1;
      const reason = error instanceof CheckFailed ? `expected ${error.message}.` : error instanceof Error ? error.message : String(error);
      say(`\nDEMO FAILED at ${where}: ${reason}`);
    }
  } finally {
    const stackFile = stack && join(REPO_ROOT, `Pulumi.${stack.name}.yaml`);
    await sandbox?.dispose().catch(() => undefined);
    if (stackFile && existsSync(stackFile)) rmSync(stackFile, { force: true });
    await gateway?.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    if (process.exitCode) say("Cleaned up: the stack, its temporary backend and the gateway are gone.");
  }
}

// This file is only ever run, never imported. (`if (import.meta.main)` would not type-check:
// test/tsconfig.json checks scripts/ as CommonJS, where import.meta does not exist.)
void main();
