import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findLeaks } from "@gateway-keys/testkit/engine";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit";
import { goTest, type GoTestResult } from "./go-test";

/**
 * The Terraform provider's acceptance tests (terraform/internal/provider/resource_api_key_test.go),
 * through the real `tofu` binary (scripts/setup builds or finds it) against a real gateway started
 * here: create → empty plan → change in place → rotation with grace under traffic → scheduled
 * rotation → drift → import → destroy revokes, the lost-answer create, the data sources,
 * plan-time validation, a webhook endpoint with a key's alert fields (in place, import, the
 * signing secret sensitive), and teams with a key's team_id (a window and a key's team changed in
 * place, import, destroy keys first). Every one must pass; a skipped one fails here.
 */
const ACCEPTANCE_TESTS = [
  "TestAccAPIKeyLifecycle",
  "TestAccAPIKeyImport",
  "TestAccAPIKeyImportBlock",
  "TestAccAPIKeyCreateFindsKeyOfLostAnswer",
  "TestAccAPIKeyCreateStopsAtAKeyItCannotVouchFor",
  "TestAccAPIKeyCreateReplaysLostAnswer",
  "TestAccAPIKeyRevokedOutside",
  "TestAccDataSources",
  "TestAccAPIKeyValidation",
  "TestAccWebhookAndKeyAlerts",
  "TestAccWebhookValidation",
  "TestAccAPIKeySecretUse",
  "TestAccTeam",
];
/** The provider's unit tests, run in the same `go test`. */
const UNIT_TESTS = [
  "TestDurationsReadAsThePulumiProviderWritesThem",
  "TestAnAmountOrInstantInAnotherSpellingIsNoChange",
  "TestAPatchSendsOnlyTheChangedFieldsAndClearsARemovedPolicyWithNull",
  "TestACreateLeavesOutWhatTheGatewayDefaults",
  "TestAPIKeyDataSourceSchemaIsTheResourceAttributesReadOnly",
  "TestRotateAfterComesDueAtTheInstantTheClockGives",
  "TestWebhookEventTypesAreTheOpenAPIDocuments",
  "TestARotationWarnsOfAPreviousSecretStillInUse",
  "TestASpendPolicyIsTheSameWhicheverFormAndOrderItIsWrittenIn",
  "TestARecordSpendPolicyReadsInEitherForm",
];
const ALL_TESTS = [...ACCEPTANCE_TESTS, ...UNIT_TESTS];

let gateway: TestGateway;
let workDir: string;
let run: Awaited<ReturnType<typeof goTest>>;
let secrets: string[];

beforeAll(async () => {
  gateway = await startTestGateway({ ownerId: "terraform-acceptance" });
  workDir = await mkdtemp(join(tmpdir(), "gateway-keys-terraform-acc-"));
  const secretsFile = join(workDir, "seen-secrets");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TF_ACC: "1",
    TF_ACC_PROVIDER_HOST: "registry.opentofu.org",
    TF_ACC_TEMP_DIR: workDir,
    // Everything tofu logs, and everything the provider logs, looked through for secrets below.
    TF_ACC_LOG_PATH: join(workDir, "tofu.log"),
    TF_ACC_LOG: "DEBUG",
    TF_LOG: "DEBUG",
    GATEWAY_BASE_URL: gateway.baseUrl,
    GATEWAY_PROVISIONING_KEY: gateway.provisioningKey,
    GATEWAY_KEYS_SEEN_SECRETS_FILE: secretsFile,
  };
  delete env.TF_CLI_CONFIG_FILE; // the machine's own CLI settings play no part
  // scripts/run puts .toolchain/bin (where scripts/setup links tofu) first on PATH.
  try {
    env.TF_ACC_TERRAFORM_PATH = execFileSync("sh", ["-c", "command -v tofu"], { env }).toString().trim();
  } catch {
    throw new Error("no tofu on PATH: `npm run setup` builds OpenTofu with Go (install Go, or OpenTofu >= 1.6, first)");
  }
  run = await goTest(["-timeout", "20m", "./..."], env, 20 * 60_000);
  secrets = (await readFile(secretsFile, "utf8")).split("\n").filter(Boolean);
}, 21 * 60_000);

afterAll(async () => {
  await gateway?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function explain(result: GoTestResult | undefined): string {
  return result ? result.output : `the test never ran; go test printed:\n${run.output}`;
}

test.each(ALL_TESTS)("%s passes", (name) => {
  const result = run.results.get(name);
  expect({ name, action: result?.action, output: result?.action === "pass" ? "" : explain(result) }).toEqual({ name, action: "pass", output: "" });
});

test("go test ran no other test and exited 0", () => {
  expect([...run.results.keys()].sort()).toEqual([...ALL_TESTS].sort());
  expect(run.exitCode).toBe(0);
});

test("no key secret and not the provisioning key in tofu's log, the provider's log or the test output", async () => {
  // The lifecycle's create and two rotations, the taken-over key's and the replayed one's.
  expect(secrets.length).toBeGreaterThanOrEqual(5);
  const needles: Record<string, string> = { "provisioning key": gateway.provisioningKey };
  secrets.forEach((secret, i) => (needles[`secret ${i}`] = secret));
  const logs = await readFile(join(workDir, "tofu.log"), "utf8");
  expect(logs.length).toBeGreaterThan(10_000); // DEBUG logging really was on
  const found = Object.entries(needles).filter(([, value]) => logs.includes(value) || run.output.includes(value));
  expect(found.map(([label]) => label)).toEqual([]);
  expect(await findLeaks(join(workDir), { "provisioning key": gateway.provisioningKey })).toEqual([]);
});
