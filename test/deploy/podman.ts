/**
 * Support of the deployment tests: the gateway's image as `npm run release` writes it, and podman
 * with a storage of its own per test file (images, containers and volumes of the machine are never
 * touched, and nothing is left behind).
 *
 * podman runs with test/deploy/containers.conf (through CONTAINERS_CONF): `runc` as the runtime and
 * explicit ulimits, without which podman fails to set rlimits in this sandbox. Containers use the
 * host's network (`--network=host`) and listen on 127.0.0.1 only: test traffic stays on loopback.
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

export const CONTAINERS_CONF = join(__dirname, "containers.conf");
const execFileAsync = promisify(execFile);

/** Fails loudly when a tool the deployment tests need is missing: scripts/setup installs them. */
export function requireTool(tool: string, debianPackage = tool): void {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
  } catch {
    throw new Error(`${tool} is not installed: run scripts/setup as root (it installs the Debian package ${debianPackage})`);
  }
}

/** The image archive and what the release step said about it. */
export interface ReleasedImage {
  archive: string;
  digest: string;
  /** The digest file beside the archive. */
  digestFile: string;
  bytes: number;
  cached: boolean;
  seconds: number;
  /** Where the release wrote it (removed by {@link removeReleasedImage}). */
  outDir: string;
}

/** Runs the release's image step (scripts/release/image.ts, as `npm run release` does) into a temporary folder. */
export async function releaseImage(): Promise<ReleasedImage> {
  requireTool("podman");
  requireTool("mmdebstrap");
  const outDir = mkdtempSync(join(tmpdir(), "gateway-image-release-"));
  // Not blocking: two test files may wait on the release step's lock at once.
  const { stdout: printed } = await execFileAsync(process.execPath, [join(REPO_ROOT, "scripts", "release", "image.ts"), outDir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON" },
    maxBuffer: 16 * 1024 * 1024,
  });
  const report = JSON.parse(printed.trim().split("\n").pop()!) as Omit<ReleasedImage, "outDir" | "digestFile">;
  return { ...report, outDir, digestFile: report.archive.replace(/\.oci\.tar$/, ".oci.digest") };
}

export function removeReleasedImage(image: ReleasedImage | undefined): void {
  if (image) rmSync(image.outDir, { recursive: true, force: true });
}

/** What an OCI archive holds: its index, the image's manifest and config (read with tar, not podman). */
export function readArchive(archive: string): { index: any; manifest: any; config: any } {
  const blob = (digest: string) => JSON.parse(execFileSync("tar", ["-xOf", archive, `blobs/${digest.replace(":", "/")}`], { encoding: "utf8" }));
  const index = JSON.parse(execFileSync("tar", ["-xOf", archive, "index.json"], { encoding: "utf8" }));
  const manifest = blob(index.manifests[0].digest);
  return { index, manifest, config: blob(manifest.config.digest) };
}

/** podman on a storage of its own. */
export class Podman {
  readonly dir = mkdtempSync(join(tmpdir(), "gateway-podman-"));
  private readonly globalArgs = ["--root", join(this.dir, "root"), "--runroot", join(this.dir, "run"), "--tmpdir", join(this.dir, "tmp"), "--storage-driver", "overlay"];
  private readonly env = { ...process.env, CONTAINERS_CONF };

  constructor() {
    requireTool("podman");
    requireTool("runc");
  }

  /** Runs podman and returns its stdout; throws with its stderr when it fails. */
  run(args: string[], options: { input?: string } = {}): string {
    return execFileSync("podman", [...this.globalArgs, ...args], {
      encoding: "utf8",
      env: this.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      ...(options.input === undefined ? {} : { input: options.input }),
      maxBuffer: 64 * 1024 * 1024,
    });
  }

  /** The same, without blocking the event loop (for commands that wait: `wait`, `stop`). */
  async runAsync(args: string[]): Promise<string> {
    const { stdout } = await execFileAsync("podman", [...this.globalArgs, ...args], { encoding: "utf8", env: this.env });
    return stdout;
  }

  /** A container's log: what it wrote to stdout and stderr. */
  logs(container: string): string {
    const result = spawnSync("podman", [...this.globalArgs, "logs", container], { encoding: "utf8", env: this.env });
    return `${result.stdout}${result.stderr}`;
  }

  /** The exit code of `podman <args>` (for commands whose answer is their exit code). */
  status(args: string[]): number {
    try {
      this.run(args);
      return 0;
    } catch (error) {
      return (error as { status: number }).status;
    }
  }

  /**
   * Removes every container, volume and image of this storage, then the storage. (Not `system
   * reset`: it clears podman's state beyond this storage.)
   */
  close(): void {
    for (const args of [["rm", "--all", "--force", "--time", "0"], ["volume", "prune", "--force"], ["rmi", "--all", "--force"]]) {
      try {
        this.run(args);
      } catch {
        // Best effort: the folder goes below either way.
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export { freePort } from "@gateway-keys/testkit/free-port";

/** Polls `url` until it answers 200; resolves with the milliseconds it took, or rejects after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs: number, startedAt = Date.now()): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return Date.now() - startedAt;
    } catch {
      // Not listening yet.
    }
    if (Date.now() - startedAt > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The gateway's version: the image's tag and its version label. */
export function gatewayVersion(): string {
  return JSON.parse(readFileSync(join(REPO_ROOT, "gateway", "package.json"), "utf8")).version;
}
