/**
 * `npm run release [-- <outdir>]`: the files a user installs, in `release/` (or `<outdir>`):
 *
 * - `gateway-keys-provider-<v>.tgz`: the `ApiKey` resource (dynamic provider) with the SDK and the
 *   contract bundled inside, so `npm install ./gateway-keys-provider-<v>.tgz` is all it takes;
 * - `gateway-keys-gateway-<v>.tgz`: the gateway and its `gateway` command (`npx gateway serve`);
 * - `gateway-keys-sdk-<v>.tgz`: the SDK on its own;
 * - `gateway-keys-policy-<v>.tgz`: the policy pack (policy/), for `pulumi preview --policy-pack <folder>`
 *   once unpacked and `npm install`ed;
 * - the Python SDK of the native plugin, `pulumi_gatewaykeys-<v>-py3-none-any.whl` and
 *   `pulumi_gatewaykeys-<v>.tar.gz` (scripts/release/python.ts);
 * - the native plugin archive `pulumi-resource-gatewaykeys-v<v>-<os>-<arch>.tar.gz`, made by
 *   scripts/plugin-archive, for `pulumi plugin install resource gatewaykeys <v> --file <archive>`;
 * - the Terraform/OpenTofu provider in the registry's file layout,
 *   `terraform-provider-gatewaykeys_<v>_linux_amd64.zip` and `terraform-provider-gatewaykeys_<v>_SHA256SUMS`
 *   (scripts/release/terraform.ts), for a filesystem mirror (docs/terraform.md);
 * - the gateway's OCI image, `gateway-keys-gateway-<v>.oci.tar`, and its manifest digest in
 *   `gateway-keys-gateway-<v>.oci.digest` (scripts/release/image.ts; docs/deployment.md). It needs
 *   podman and mmdebstrap (scripts/setup installs them as root); `--skip-image` releases the rest
 *   without them, and says so.
 *
 * It packs what `npm run build` compiled (scripts/run builds first). Each tarball is packed by npm
 * itself from a staged copy (scripts/release/stage.ts), and the script ends by printing every
 * artifact with its size. Run with Node >= 22 from anywhere: `node scripts/release.ts [outdir] [--skip-image]`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readWorkspaces, stagePackage } from "./release/stage.ts";
import { releaseImage } from "./release/image.ts";
import { releasePythonSdk } from "./release/python.ts";
import { releaseTerraformProvider } from "./release/terraform.ts";

/** This script is scripts/release.ts of the repository (argv[1]; `import.meta` would not type-check as CommonJS). */
const REPO_ROOT = resolve(dirname(process.argv[1]!), "..");
/** The packages a user installs; each carries the workspace packages it needs. */
const PUBLISHED = ["@gateway-keys/provider", "@gateway-keys/gateway", "@gateway-keys/sdk", "@gateway-keys/policy"];
const PLUGIN_ARCHIVE_SCRIPT = join(REPO_ROOT, "scripts", "plugin-archive");

/** One file of the release. */
interface Artifact {
  file: string;
  bytes: number;
}

/** What `npm pack --json` reports of one tarball. */
interface PackReport {
  filename: string;
  size: number;
  entryCount: number;
}

function packStaged(stageDir: string, outDir: string): Artifact {
  const report = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", outDir], { cwd: stageDir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
  ) as PackReport[];
  const packed = report[0]!;
  return { file: join(outDir, packed.filename), bytes: packed.size };
}

/** The native plugin archive, when scripts/plugin-archive exists (it prints the archive's path last). */
function buildPluginArchive(outDir: string): Artifact | undefined {
  if (!existsSync(PLUGIN_ARCHIVE_SCRIPT)) return undefined;
  const printed = execFileSync("bash", [PLUGIN_ARCHIVE_SCRIPT, outDir], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const file = printed.trim().split("\n").pop()!.trim();
  if (!existsSync(file)) throw new Error(`scripts/plugin-archive printed ${JSON.stringify(file)}, which is not a file`);
  return { file: resolve(file), bytes: statSync(file).size };
}

/** Builds every artifact into `outDir` (emptied of earlier artifacts first) and returns them. */
async function release(outDir: string, withImage: boolean): Promise<Artifact[]> {
  mkdirSync(outDir, { recursive: true });
  for (const old of readdirSync(outDir)) {
    if (/\.(tgz|tar\.gz|zip|whl|oci\.tar|oci\.digest)$|_SHA256SUMS$/.test(old)) rmSync(join(outDir, old));
  }
  const stageRoot = join(outDir, ".stage");
  rmSync(stageRoot, { recursive: true, force: true });
  const workspaces = readWorkspaces(REPO_ROOT);
  const artifacts: Artifact[] = [];
  try {
    for (const name of PUBLISHED) {
      const stageDir = join(stageRoot, name.replace("/", "+"));
      stagePackage(name, workspaces, stageDir, join(REPO_ROOT, "LICENSE"));
      artifacts.push(packStaged(stageDir, outDir));
    }
  } finally {
    rmSync(stageRoot, { recursive: true, force: true });
  }
  const plugin = buildPluginArchive(outDir);
  if (plugin) artifacts.push(plugin);
  const version: string = JSON.parse(readFileSync(join(REPO_ROOT, "provider", "package.json"), "utf8")).version;
  for (const file of releasePythonSdk(REPO_ROOT, outDir, version)) artifacts.push({ file, bytes: statSync(file).size });
  for (const file of await releaseTerraformProvider(REPO_ROOT, outDir, version)) artifacts.push({ file, bytes: statSync(file).size });
  if (withImage) {
    const gatewayVersion: string = JSON.parse(readFileSync(join(REPO_ROOT, "gateway", "package.json"), "utf8")).version;
    const image = await releaseImage(REPO_ROOT, outDir, gatewayVersion);
    artifacts.push({ file: image.archive, bytes: image.bytes }, { file: image.digestFile, bytes: statSync(image.digestFile).size });
    process.stderr.write(`image ${image.digest}${image.cached ? " (from the cache: nothing that goes in changed)" : ""}\n`);
  }
  return artifacts;
}

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg.startsWith("-") && arg !== "--skip-image");
if (unknown.length > 0) {
  console.error(`unknown option ${unknown.join(", ")}: the options are [outdir] and --skip-image`);
  process.exit(2);
}
const skipImage = args.includes("--skip-image");
const outDir = resolve(args.find((arg) => !arg.startsWith("-")) ?? join(REPO_ROOT, "release"));
release(outDir, !skipImage).then(
  (artifacts) => {
    for (const { file, bytes } of artifacts) process.stdout.write(`${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${file}\n`);
    if (skipImage) process.stdout.write("the gateway image was skipped (--skip-image)\n");
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
