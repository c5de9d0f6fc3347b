/**
 * A user's project outside this repository: a fresh folder under the system temp folder where only
 * the release artifacts (scripts/release.ts) and packages from the npm registry are installed, the
 * way README's "Use it in your own project" says.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

const run = promisify(execFile);

/** The files `npm run release` makes. */
export interface Release {
  dir: string;
  /** Whether it is the run's shared build (see {@link buildRelease}), which its tests must leave as it is. */
  shared: boolean;
  provider: string;
  gateway: string;
  sdk: string;
  /** The native plugin's archive. */
  pluginArchive: string;
  /** The Terraform provider's zip and its checksums file, in the registry's layout. */
  terraformZip: string;
  terraformSums: string;
  /** The Python SDK of the native plugin: wheel and sdist. */
  pythonWheel: string;
  pythonSdist: string;
  /** The policy pack (policy/) as an npm tarball. */
  policyPack: string;
  version: string;
}

/**
 * The environment for npm and the gateway outside the repo: jest runs under `npm test`, whose
 * `npm_*` variables (the repo's prefix, package.json and config) would point a nested npm back at
 * the repository.
 */
export function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value;
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
}

/**
 * Set by `npm test` (scripts/test.ts) to a folder of its own: the first test of the run that needs
 * the release builds it there, and the others take it from there, rather than each building its own.
 */
export const SHARED_RELEASE_ENV = "GATEWAY_KEYS_SHARED_RELEASE_DIR";

/**
 * `npm run release`'s files without the gateway's image (which the tests that need it take from
 * scripts/release/image.ts): the run's shared build under `npm test`, else a build of this
 * process's own. Give it back with {@link discardRelease}.
 */
export async function buildRelease(): Promise<Release> {
  const shared = process.env[SHARED_RELEASE_ENV];
  if (!shared) return releaseInto(await mkdtemp(join(tmpdir(), "gateway-keys-release-")), false);
  try {
    await mkdir(join(shared, "building"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return builtByAnother(shared);
  }
  try {
    const release = await releaseInto(join(shared, "files"), true);
    await writeFile(join(shared, "release.json.partial"), JSON.stringify(release));
    await rename(join(shared, "release.json.partial"), join(shared, "release.json"));
    return release;
  } catch (error) {
    await writeFile(join(shared, "failed.txt"), String((error as Error).message));
    throw error;
  }
}

/** Removes a release this process built for itself; the run's shared one stays for the other tests (scripts/test.ts removes it). */
export async function discardRelease(release: Release | undefined): Promise<void> {
  if (release && !release.shared) await rm(release.dir, { recursive: true, force: true });
}

/** Waits for the test building the run's shared release, and takes what it made. */
async function builtByAnother(shared: string): Promise<Release> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      return JSON.parse(await readFile(join(shared, "release.json"), "utf8")) as Release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const failed = await readFile(join(shared, "failed.txt"), "utf8").catch(() => undefined);
    if (failed !== undefined) throw new Error(`the run's shared release (${shared}) failed to build in another test: ${failed}`);
    if (Date.now() > deadline) throw new Error(`the run's shared release (${shared}) was not built within 15 minutes`);
    await delay(500);
  }
}

/** Runs scripts/release.ts (without the image) into `dir` and returns what it made. */
async function releaseInto(dir: string, shared: boolean): Promise<Release> {
  await mkdir(dir, { recursive: true });
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, "scripts/release.ts"), dir, "--skip-image"], { cwd: REPO_ROOT, maxBuffer: 4 * 1024 * 1024 });
  const files = stdout.trim().split("\n").map((line) => line.trim().split(/\s+/).pop()!);
  const version: string = require(join(REPO_ROOT, "provider/package.json")).version;
  const find = (pattern: RegExp) => {
    const file = files.find((candidate) => pattern.test(candidate));
    if (!file) throw new Error(`scripts/release.ts made no file matching ${pattern}; it printed:\n${stdout}`);
    return file;
  };
  return {
    dir,
    shared,
    provider: find(/\/gateway-keys-provider-[^/]+\.tgz$/),
    gateway: find(/\/gateway-keys-gateway-[^/]+\.tgz$/),
    sdk: find(/\/gateway-keys-sdk-[^/]+\.tgz$/),
    pluginArchive: find(/\/pulumi-resource-gatewaykeys-v[^/]+\.tar\.gz$/),
    terraformZip: find(/\/terraform-provider-gatewaykeys_[^/]+_linux_amd64\.zip$/),
    terraformSums: find(/\/terraform-provider-gatewaykeys_[^/]+_SHA256SUMS$/),
    pythonWheel: find(/\/pulumi_gatewaykeys-[^/]+-py3-none-any\.whl$/),
    pythonSdist: find(/\/pulumi_gatewaykeys-[^/]+\.tar\.gz$/),
    policyPack: find(/\/gateway-keys-policy-[^/]+\.tgz$/),
    version,
  };
}

/** A new empty folder outside the repository with a package.json, so npm installs there and nowhere else. */
export async function newOutsideFolder(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `gateway-keys-outside-${name}-`));
  await writeFile(join(dir, "package.json"), `${JSON.stringify({ name: `outside-${name}`, private: true }, null, 2)}\n`);
  return dir;
}

/**
 * `npm install <specs...>` in `dir`: tarball paths and registry packages, in one command as a user
 * types it. `ignorePeerRange` lets npm install a `@pulumi/pulumi` outside the provider's declared
 * peer range, to try whether the range could be wider.
 */
export async function npmInstall(dir: string, specs: string[], { ignorePeerRange = false } = {}): Promise<void> {
  const flags = ["--prefer-offline", "--loglevel=error", "--fetch-timeout=60000", ...(ignorePeerRange ? ["--legacy-peer-deps"] : [])];
  // An install once stalled for 14 minutes with no child process running (not understood): a stalled
  // install is killed and tried once more, rather than holding CI until its own time limit.
  for (let attempt = 1; ; attempt++) {
    try {
      await run("npm", ["install", ...flags, ...specs], { cwd: dir, env: outsideEnv(), maxBuffer: 16 * 1024 * 1024, timeout: NPM_INSTALL_TIMEOUT_MS, killSignal: "SIGKILL" });
      return;
    } catch (error) {
      const stalled = (error as { killed?: boolean }).killed === true;
      if (!stalled || attempt === 2) throw error;
      console.warn(`npm install in ${dir} stalled for ${NPM_INSTALL_TIMEOUT_MS / 1000} s and was killed; trying once more`);
    }
  }
}

/** A user's install takes 9–15 s with a warm cache, about a minute with a cold one. */
const NPM_INSTALL_TIMEOUT_MS = 4 * 60_000;

/**
 * Writes a Pulumi TypeScript project: one key whose spend limit is stack config; the stack config
 * `outside-keys:flavour` picks the dynamic `ApiKey` or `native.ApiKey` (the plugin).
 */
export async function writeKeyProgram(dir: string): Promise<void> {
  await writeFile(join(dir, "Pulumi.yaml"), "name: outside-keys\nruntime: nodejs\n");
  await writeFile(
    join(dir, "tsconfig.json"),
    `${JSON.stringify({ compilerOptions: { target: "ES2022", module: "Node16", moduleResolution: "Node16", strict: true, esModuleInterop: true, skipLibCheck: true }, files: ["index.ts"] }, null, 2)}\n`,
  );
  await writeFile(
    join(dir, "index.ts"),
    [
      'import * as pulumi from "@pulumi/pulumi";',
      'import { ApiKey, native } from "@gateway-keys/provider";',
      "",
      "const config = new pulumi.Config();",
      'const Key = config.get("flavour") === "native" ? native.ApiKey : ApiKey;',
      'const key = new Key("outside", {',
      '  spendPolicy: { limitUnits: config.get("limitUnits") ?? "10" },',
      '  modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },',
      "});",
      "",
      "export const keyId = key.keyId;",
      "export const version = key.version;",
      "export const secret = key.secret;",
      "",
    ].join("\n"),
  );
}

/** A gateway started from an installed tarball's `gateway` command. */
export interface InstalledGateway {
  baseUrl: string;
  provisioningKey: string;
  /** Sends SIGTERM and waits for the process to end; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `gateway serve --port 0 --bootstrap` in `dir` and reads its address and provisioning key from
 * stdout. It starts `node_modules/.bin/gateway`, the link `npx gateway` runs, directly: npx ends on
 * SIGTERM without passing it on, which would leave the gateway running and its clean stop untested.
 */
export async function serveInstalledGateway(dir: string): Promise<InstalledGateway> {
  const bin = join(dir, "node_modules", ".bin", "gateway");
  const child: ChildProcess = spawn(bin, ["serve", "--port", "0", "--db", join(dir, "gateway.db"), "--bootstrap", "--owner", "outside", "--console"], {
    cwd: dir,
    env: outsideEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let baseUrl = "";
  let provisioningKey = "";
  const lines = createInterface({ input: child.stdout! });
  const ready = (async () => {
    for await (const line of lines) {
      baseUrl ||= /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? "";
      provisioningKey ||= /(gwp_\S+)/.exec(line)?.[1] ?? "";
      if (baseUrl && provisioningKey) return;
    }
  })();
  const outcome = await Promise.race([ready.then(() => "ready" as const), exited.then(() => "exited" as const), delay(60_000).then(() => "slow" as const)]);
  if (outcome !== "ready") {
    child.kill("SIGKILL");
    throw new Error(`gateway serve ${outcome === "slow" ? "printed no address within 60 s" : "exited before it was ready"}; stderr:\n${stderr}`);
  }
  return {
    baseUrl,
    provisioningKey,
    async stop() {
      lines.close();
      child.kill("SIGTERM");
      return exited;
    },
  };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Runs a CommonJS script with Node in `dir` (so it resolves the packages installed there). */
export async function nodeIn(dir: string, script: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, ["-e", script], { cwd: dir, env: { ...outsideEnv(), ...env } });
  return stdout;
}

/** Runs the real Pulumi CLI in `dir` with an engine sandbox's environment. */
export async function pulumiIn(dir: string, sandboxEnv: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await run("pulumi", args, { cwd: dir, env: { ...process.env, ...sandboxEnv }, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}
