import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";
import { TERRAFORM_DIR } from "./go-test";

const run = promisify(execFile);

/** The Terraform provider's account API client is generated from docs/openapi.json, never edited by hand. */
test("the checked-in Go client (terraform/internal/gatewayapi) is what scripts/terraform-client generates from docs/openapi.json", async () => {
  const dir = await mkdtemp(join(tmpdir(), "gatewaykeys-tf-client-"));
  try {
    const fresh = join(dir, "client.gen.go");
    await run("bash", [join(REPO_ROOT, "scripts/terraform-client"), fresh], { cwd: REPO_ROOT });
    const checkedIn = await readFile(join(TERRAFORM_DIR, "internal/gatewayapi/client.gen.go"), "utf8");
    // Stale: run `npm run terraform-client` (after `npm run openapi`).
    expect(checkedIn === (await readFile(fresh, "utf8"))).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

/** The client names the account API's wire objects, so the provider reads one ApiKey type. */
test("the generated client has the contract's named types and every account operation the provider calls", async () => {
  const client = await readFile(join(TERRAFORM_DIR, "internal/gatewayapi/client.gen.go"), "utf8");
  for (const type of ["ApiKey", "ApiKeyWithSecret", "CreateApiKeyRequest", "UpdateApiKeyRequest", "RotateApiKeyRequest", "VersionedRequest", "SpendPolicy", "RateLimitPolicy", "ErrorEnvelope", "Principal", "Model"]) {
    expect(client).toMatch(new RegExp(`^type ${type} struct`, "m"));
  }
  for (const operation of ["ListKeys", "CreateKey", "GetKey", "UpdateKey", "RotateKey", "RevokeKey", "Whoami", "Models"]) {
    expect(client).toContain(`func (c *ClientWithResponses) ${operation}WithResponse(`);
  }
});
