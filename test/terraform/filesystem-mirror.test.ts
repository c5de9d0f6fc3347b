import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { GatewayClient } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit";
import { buildRelease, discardRelease, type Release } from "../e2e/support/outside-project";
import { newTofuFolder, type TofuFolder, type TofuRun } from "./tofu";

/**
 * A Terraform user outside the repository: the provider installed from `npm run release`'s files
 * through a filesystem mirror, examples/terraform applied with the real `tofu` — init, apply, a plan
 * without changes, a rotation the plan names, a stale saved plan refused, drift, import, destroy.
 */
let release: Release;
let gateway: TestGateway;
let folder: TofuFolder;
let client: GatewayClient;
/** Every command's output, looked through for secrets at the end. */
const transcript: TofuRun[] = [];
const secrets: string[] = [];

async function tofu(args: string[], expectCode = 0, { printsSecret = false } = {}): Promise<TofuRun> {
  const [command, ...rest] = args; // a command of two words ("state show") is one argument here
  const result = await folder.run([...command!.split(" "), "-no-color", ...rest]);
  if (!printsSecret) transcript.push(result);
  if (result.code !== expectCode) throw new Error(`tofu ${args.join(" ")} exited ${result.code}, expected ${expectCode}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

const DAY = 86_400_000;
/** How long after a saved plan starts the secret comes due: longer than a plan takes, short to wait. */
const DUE_IN = 20_000;

/**
 * Makes the search key's secret look issued `age` ago: moves `secret_issued_at` back in the state
 * and `tofu state push`es it, as the days passing would leave it. The released provider measures
 * rotate_after against the system clock, which nothing moves but time (no setting of the
 * provider's changes it); the issue time is what the test controls instead. Returns the instant written.
 */
async function searchSecretIssuedAgo(age: number): Promise<string> {
  const state = JSON.parse(await readFile(join(folder.dir, "terraform.tfstate"), "utf8"));
  const search = state.resources.find((resource: { name: string }) => resource.name === "search").instances[0];
  expect(search.attributes.secret_issued_at).toEqual(expect.any(String));
  const issued = new Date(Date.now() - age).toISOString();
  search.attributes.secret_issued_at = issued;
  state.serial += 1;
  const moved = join(folder.dir, "moved.tfstate");
  await writeFile(moved, JSON.stringify(state, null, 2), { mode: 0o600 });
  try {
    await tofu(["state push", moved]);
  } finally {
    await rm(moved, { force: true });
  }
  return issued;
}

/** `tofu output -raw`: the one command that prints a secret, on purpose, when asked for it by name. */
const output = async (name: string) => (await tofu(["output", "-raw", name], 0, { printsSecret: name.endsWith("secret") })).stdout;

async function modelStatus(secret: string): Promise<number> {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "echo-1", messages: [{ role: "user", content: "hello" }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  [release, gateway] = await Promise.all([buildRelease(), startTestGateway({ ownerId: "terraform-user" })]);
  folder = await newTofuFolder(release.terraformZip, gateway);
  client = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
}, 300_000);

afterAll(async () => {
  await gateway?.stop();
  if (folder) await rm(folder.dir, { recursive: true, force: true });
  await discardRelease(release);
});

describe("examples/terraform with the provider from the release, through a filesystem mirror", () => {
  let searchKeyId: string;
  let firstSecret: string;

  test("the release's SHA256SUMS vouches for its zip", async () => {
    const sums = await readFile(release.terraformSums, "utf8");
    const digest = createHash("sha256").update(await readFile(release.terraformZip)).digest("hex");
    expect(sums).toBe(`${digest}  ${basename(release.terraformZip)}\n`);
  });

  test("tofu init installs gateway-keys/gatewaykeys from the mirror and locks its version and hash", async () => {
    const init = await tofu(["init", "-input=false"]);
    expect(init.stdout).toContain(`Installed gateway-keys/gatewaykeys v${release.version}`);
    const lock = await readFile(join(folder.dir, ".terraform.lock.hcl"), "utf8");
    expect(lock).toContain('provider "registry.opentofu.org/gateway-keys/gatewaykeys"');
    expect(lock).toContain(`version     = "${release.version}"`);
  }, 120_000);

  test("tofu apply creates both keys with their policies; the secret works and is a sensitive output", async () => {
    const apply = await tofu(["apply", "-auto-approve", "-input=false"]);
    expect(apply.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 0 destroyed.");
    expect(apply.stdout).toMatch(/search_secret = <sensitive>/);
    searchKeyId = await output("search_key_id");
    firstSecret = await output("search_secret");
    secrets.push(firstSecret);
    const key = await client.apiKeys.get(searchKeyId);
    expect(key).toMatchObject({
      name: "search-production",
      state: "active",
      version: 1,
      spendPolicy: { limitUnits: "500", resetPeriod: "monthly" },
      rateLimitPolicy: { requestsPerMinute: 600, maxConcurrentRequests: 20 },
      loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 7 },
      modelPolicy: { mode: "allowList" },
      labels: { team: "search", env: "production" },
      clientReference: "terraform:default/search",
    });
    expect(key.modelPolicy.modelIds).toContain("echo-1");
    expect(await modelStatus(firstSecret)).toBe(200);
    const contractor = await client.apiKeys.get(await output("contractor_key_id"));
    expect(contractor.expiresAt).toBe("2099-03-31T23:59:59.000Z");
  }, 120_000);

  test("tofu plan after apply has no changes", async () => {
    const plan = await tofu(["plan", "-detailed-exitcode", "-input=false"]);
    expect(plan.stdout).toContain("No changes.");
  }, 60_000);

  test("the state keeps the secret only as a sensitive value", async () => {
    const state = JSON.parse(await readFile(join(folder.dir, "terraform.tfstate"), "utf8"));
    const search = state.resources.find((resource: { name: string }) => resource.name === "search").instances[0];
    expect(search.sensitive_attributes).toEqual(expect.arrayContaining([[{ type: "get_attr", value: "secret" }]]));
    const shown = await tofu(["show"]);
    expect(shown.stdout).toMatch(/secret\s+= \(sensitive value\)/);
  }, 60_000);

  test("a new rotation_trigger: the plan names an in-place rotation, the apply keeps the key and hands out a new secret, the old one works for its grace period", async () => {
    const plan = await tofu(["plan", "-input=false", "-var", "rotation_trigger=2"]);
    expect(plan.stdout).toContain("# gatewaykeys_api_key.search will be updated in-place");
    expect(plan.stdout).toMatch(/~ rotation_trigger\s+= "1" -> "2"/);
    expect(plan.stdout).toMatch(/~ secret\s+= \(sensitive value\)/);
    expect(plan.stdout).toContain("Plan: 0 to add, 1 to change, 0 to destroy.");
    expect(plan.said).toContain(`Key ${searchKeyId} (search-production) gets a new secret in place at apply: rotation_trigger changed`);
    await tofu(["apply", "-auto-approve", "-input=false", "-var", "rotation_trigger=2"]);
    expect(await output("search_key_id")).toBe(searchKeyId);
    const rotated = await output("search_secret");
    secrets.push(rotated);
    expect(rotated).not.toBe(firstSecret);
    expect(await modelStatus(rotated)).toBe(200);
    expect(await modelStatus(firstSecret)).toBe(200); // rotation_grace_period = "1h"
    await tofu(["plan", "-detailed-exitcode", "-input=false", "-var", "rotation_trigger=2"]);
  }, 120_000);

  test("a saved plan applied after an outside change is refused in Terraform terms and overwrites nothing", async () => {
    await tofu(["plan", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=900", "-out=budget.tfplan"]);
    const before = await client.apiKeys.get(searchKeyId);
    await client.apiKeys.update(searchKeyId, { expectedVersion: before.version, name: "renamed-by-hand" });
    const apply = await tofu(["apply", "-input=false", "budget.tfplan"], 1);
    expect(apply.said).toContain(`Key ${searchKeyId} changed outside Terraform: the state has version ${before.version}, the gateway has version ${before.version + 1}. Nothing was overwritten.`);
    expect(apply.said).toContain("Run `tofu plan` (or `terraform plan`), which refreshes the key and shows what changed, review it, then run `tofu apply` again.");
    expect(await client.apiKeys.get(searchKeyId)).toMatchObject({ name: "renamed-by-hand", spendPolicy: { limitUnits: "500" } });
  }, 120_000);

  test("drift shows on plan and apply undoes it in place", async () => {
    const plan = await tofu(["plan", "-detailed-exitcode", "-input=false", "-var", "rotation_trigger=2"], 2);
    expect(plan.stdout).toMatch(/~ name\s+= "renamed-by-hand" -> "search-production"/);
    await tofu(["apply", "-auto-approve", "-input=false", "-var", "rotation_trigger=2"]);
    expect(await client.apiKeys.get(searchKeyId)).toMatchObject({ name: "search-production" });
    await tofu(["plan", "-detailed-exitcode", "-input=false", "-var", "rotation_trigger=2"]);
  }, 120_000);

  test("rotate_after come due between a saved plan and its apply: the apply does what the plan said, and the next plan rotates", async () => {
    // The secret comes due DUE_IN from now: after the saved plan's refresh, before its apply.
    const issued = await searchSecretIssuedAgo(30 * DAY - DUE_IN);
    const dueAt = Date.parse(issued) + 30 * DAY;
    const before = await client.apiKeys.get(searchKeyId);
    await tofu(["plan", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600", "-out=budget.tfplan"]);
    // Fails, rather than passes by accident, on a machine so slow the plan itself ran past the due date.
    expect(Date.now()).toBeLessThan(dueAt);
    await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now() + 100));
    const apply = await tofu(["apply", "-input=false", "budget.tfplan"]);
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    const patched = await client.apiKeys.get(searchKeyId);
    expect(patched).toMatchObject({ version: before.version + 1, spendPolicy: { limitUnits: "600" }, rotatedAt: before.rotatedAt });
    const plan = await tofu(["plan", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600"]);
    expect(plan.said).toContain(`gets a new secret in place at apply: scheduled: the secret issued ${new Date(issued).toISOString().replace(/\.?0+Z$/, "Z")} reached rotate_after 30d`);
    await tofu(["apply", "-auto-approve", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600"]);
    const rotated = await output("search_secret");
    secrets.push(rotated);
    expect((await client.apiKeys.get(searchKeyId)).rotatedAt).not.toBe(before.rotatedAt);
    expect(await modelStatus(rotated)).toBe(200);
    // One due date, one rotation.
    await tofu(["plan", "-detailed-exitcode", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600"]);
  }, 180_000);

  test("tofu import adopts a key made outside Terraform, and the plan after it has no changes", async () => {
    const made = await client.apiKeys.create({ name: "made-by-hand", spendPolicy: { limitUnits: "12.5", resetPeriod: "weekly" }, labels: { team: "ops" } });
    secrets.push(made.secret);
    await writeFile(
      join(folder.dir, "imported.tf"),
      'resource "gatewaykeys_api_key" "by_hand" {\n  name         = "made-by-hand"\n  spend_policy = { limit_units = "12.5", reset_period = "weekly" }\n  labels       = { team = "ops" }\n}\n',
    );
    const imported = await tofu(["import", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600", "gatewaykeys_api_key.by_hand", made.keyId]);
    expect(imported.stdout).toContain("Import successful!");
    const plan = await tofu(["plan", "-detailed-exitcode", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600"]);
    expect(plan.stdout).toContain("No changes.");
  }, 120_000);

  test("tofu destroy revokes every key", async () => {
    const ids = [searchKeyId, await output("contractor_key_id")];
    const shown = await tofu(["state show", "gatewaykeys_api_key.by_hand"]);
    const imported = /key_id\s+= "(key_\w+)"/.exec(shown.stdout)?.[1];
    expect(imported).toMatch(/^key_/);
    const destroy = await tofu(["destroy", "-auto-approve", "-input=false", "-var", "rotation_trigger=2", "-var", "monthly_budget=600"]);
    expect(destroy.stdout).toContain("Destroy complete! Resources: 3 destroyed.");
    for (const keyId of [...ids, imported!]) expect((await client.apiKeys.get(keyId)).state).toBe("revoked");
  }, 120_000);

  test("no secret and not the provisioning key in anything tofu printed", () => {
    expect(secrets.length).toBe(4);
    expect(transcript.length).toBeGreaterThan(15);
    const all = transcript.map((run) => run.stdout + run.stderr).join("\n");
    const leaked = [...secrets, gateway.provisioningKey].map((secret, i) => ({ i, printed: all.includes(secret) })).filter(({ printed }) => printed);
    expect(leaked).toEqual([]);
  });
});
