/**
 * Stages a workspace package the way it is published: its compiled `dist/` without source maps or
 * build info, its README, the repository's LICENSE and a `package.json` without dev-only fields.
 * A package that depends on other workspace packages gets them staged inside its own
 * `node_modules/` and listed in `bundleDependencies`, so `npm pack` puts them in its tarball and
 * `npm install <tarball>` needs nothing else from this repository.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";

/** The fields of a package.json this script reads or rewrites. */
export interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  bundleDependencies?: string[];
  scripts?: Record<string, string>;
  files?: string[];
  [field: string]: unknown;
}

/** A workspace package: its folder and its package.json. */
export interface Workspace {
  dir: string;
  manifest: PackageJson;
}

/** Files that help only while developing: source maps (they point at sources not shipped), tsc's build info, tests. */
function isShipped(path: string): boolean {
  const name = basename(path);
  return !name.endsWith(".map") && !name.endsWith(".tsbuildinfo") && !/\.test\.[cm]?js$/.test(name);
}

/**
 * Whether a file of `dist/` is the output of a source that still exists: `tsc -b` never deletes
 * what a moved or deleted source compiled to, and such leftovers must not reach users.
 */
function hasSource(workspaceDir: string, distFile: string): boolean {
  const compiled = /^(.*?)(\.d\.ts|\.js)$/.exec(relative(join(workspaceDir, "dist"), distFile));
  return compiled === null || existsSync(join(workspaceDir, "src", `${compiled[1]}.ts`));
}

/** tsc's last line of each .js and .d.ts, naming the map beside it; the maps are not shipped. */
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=\S+\.map\s*$/;

/** Drops the source-map comments from the compiled files under `dir`, so no tool looks for a missing map. */
function stripSourceMapComments(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(js|d\.ts)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    if (SOURCE_MAP_COMMENT.test(text)) writeFileSync(file, `${text.replace(SOURCE_MAP_COMMENT, "")}\n`);
  }
}

/** Reads every workspace of the repository, by package name. */
export function readWorkspaces(repoRoot: string): Map<string, Workspace> {
  const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { workspaces: string[] };
  const workspaces = new Map<string, Workspace>();
  for (const folder of root.workspaces) {
    const dir = join(repoRoot, folder);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
    workspaces.set(manifest.name, { dir, manifest });
  }
  return workspaces;
}

/** The workspace packages `name` depends on, directly or through another workspace package. */
export function internalDependencies(name: string, workspaces: Map<string, Workspace>): string[] {
  const found = new Set<string>();
  const visit = (current: string) => {
    for (const dependency of Object.keys(workspaces.get(current)!.manifest.dependencies ?? {})) {
      if (workspaces.has(dependency) && !found.has(dependency)) {
        found.add(dependency);
        visit(dependency);
      }
    }
  };
  visit(name);
  return [...found].sort();
}

/** Copies one package's shipped files into `target` and writes its package.json there. */
function copyPackage(workspace: Workspace, target: string, licenseFile: string, manifest: PackageJson): void {
  const dist = join(workspace.dir, "dist");
  // A package with a `main` is compiled by tsc; one without (the console) is a bundle of static files.
  const compiled = workspace.manifest.main !== undefined;
  const built = join(dist, compiled ? "index.js" : "index.html");
  if (!existsSync(built)) throw new Error(`${workspace.manifest.name} is not built (${built} is missing): run npm run build`);
  mkdirSync(target, { recursive: true });
  cpSync(dist, join(target, "dist"), { recursive: true, filter: (path) => isShipped(path) && (!compiled || hasSource(workspace.dir, path)) });
  stripSourceMapComments(join(target, "dist"));
  for (const extra of manifest.files ?? []) {
    if (extra !== "dist") cpSync(join(workspace.dir, extra), join(target, extra), { recursive: true, filter: isShipped });
  }
  const readme = join(workspace.dir, "README.md");
  if (existsSync(readme)) cpSync(readme, join(target, "README.md"));
  cpSync(licenseFile, join(target, "LICENSE"));
  const { devDependencies: _dev, scripts: _scripts, ...published } = manifest;
  writeFileSync(join(target, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
}

/**
 * Stages `name` in `target`, with every workspace package it needs inside `target/node_modules`.
 * The bundled packages' own registry dependencies become the staged package's dependencies: npm
 * installs the dependencies of the top package, not those of the packages bundled inside it, and
 * the bundled code finds them by walking up the folders. Two different pins of one dependency
 * would need two copies, so they stop the release instead.
 */
export function stagePackage(name: string, workspaces: Map<string, Workspace>, target: string, licenseFile: string): PackageJson {
  const workspace = workspaces.get(name);
  if (!workspace) throw new Error(`no workspace package named ${name}`);
  const bundled = internalDependencies(name, workspaces);
  const dependencies = { ...workspace.manifest.dependencies };
  for (const inner of bundled) {
    for (const [dependency, range] of Object.entries(workspaces.get(inner)!.manifest.dependencies ?? {})) {
      if (workspaces.has(dependency)) continue;
      if (dependencies[dependency] !== undefined && dependencies[dependency] !== range) {
        throw new Error(`${name} and its bundled ${inner} pin ${dependency} differently (${dependencies[dependency]} and ${range}): align the pins`);
      }
      dependencies[dependency] = range;
    }
  }
  const manifest: PackageJson = { ...workspace.manifest, dependencies: sortKeys(dependencies) };
  if (bundled.length > 0) manifest.bundleDependencies = bundled;
  copyPackage(workspace, target, licenseFile, manifest);
  for (const inner of bundled) {
    const innerWorkspace = workspaces.get(inner)!;
    copyPackage(innerWorkspace, join(target, "node_modules", inner), licenseFile, innerWorkspace.manifest);
  }
  return manifest;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
