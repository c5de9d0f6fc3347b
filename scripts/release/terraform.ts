/**
 * The Terraform/OpenTofu provider as a registry release lays it out, for a `filesystem_mirror`
 * (docs/terraform.md): `terraform-provider-gatewaykeys_<v>_linux_amd64.zip`, holding the binary
 * `terraform-provider-gatewaykeys_v<v>`, and `terraform-provider-gatewaykeys_<v>_SHA256SUMS`.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import yazl from "yazl";

/** The platforms released: the one this project's machines run. */
const TARGETS = [{ goos: "linux", goarch: "amd64" }] as const;

/** Builds the provider for each target into `outDir`; resolves with the files written (zips, then the sums). */
export async function releaseTerraformProvider(repoRoot: string, outDir: string, version: string): Promise<string[]> {
  const stage = mkdtempSync(join(tmpdir(), "terraform-provider-gatewaykeys-"));
  const files: string[] = [];
  try {
    for (const { goos, goarch } of TARGETS) {
      const binaryName = `terraform-provider-gatewaykeys_v${version}`;
      const binary = join(stage, `${goos}_${goarch}`, binaryName);
      execFileSync("go", ["build", "-trimpath", "-ldflags", `-s -w -X main.version=${version}`, "-o", binary, "."], {
        cwd: join(repoRoot, "terraform"),
        env: { ...process.env, CGO_ENABLED: "0", GOOS: goos, GOARCH: goarch },
        stdio: ["ignore", "inherit", "inherit"],
      });
      const zip = join(outDir, `terraform-provider-gatewaykeys_${version}_${goos}_${goarch}.zip`);
      await writeZip(zip, binary, binaryName);
      files.push(zip);
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  const sums = join(outDir, `terraform-provider-gatewaykeys_${version}_SHA256SUMS`);
  const lines = files.map((file) => `${createHash("sha256").update(readFileSync(file)).digest("hex")}  ${basename(file)}\n`);
  writeFileSync(sums, lines.join(""));
  return [...files, sums];
}

/** A zip holding one executable (mode 0755, as tofu expects to run it after unpacking). */
function writeZip(zipPath: string, file: string, nameInZip: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    zip.addFile(file, nameInZip, { mode: 0o100755 });
    zip.end();
    const out = createWriteStream(zipPath);
    zip.outputStream.pipe(out).on("close", resolve).on("error", reject);
  });
}
