/**
 * What a suite needs from the machine, and what happens without it — decided here, the same way
 * for every suite:
 *
 *   const describeWithPostgres = describeWith("postgres");
 *   describeWithPostgres("PostgreSQL faults under load", () => { … });
 *
 * - With the dependency, `describeWith` is `describe` (and `testWith`, `test`).
 * - Without it, the block is skipped, and the skip and its reason go to the run's closing lines
 *   (test/support/summary-reporter.js counts skipped tests by reason).
 * - Without it under `CI=true`, the file fails at once, naming what is missing: CI installs
 *   everything (scripts/setup), so a missing dependency there is a broken setup, never a skip.
 *
 * `npm test` installs each suite's dependencies before running it (scripts/test-parts.ts maps test
 * folders to scripts/setup's parts); each dependency's `part` below is the one that installs it.
 * `GATEWAY_KEYS_WITHOUT=chromium,postgres` makes this module treat those as missing (to try the
 * skip accounting on a machine that has them).
 *
 * Only erasable TypeScript with `.ts` and package imports: jest.config.js loads it through Node's
 * type stripping (test/support/postgres-project.js).
 */
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { chromiumUnavailableReason } from "@gateway-keys/testkit/chromium";
import { postgresUnavailableReason } from "@gateway-keys/testkit/postgres";
import { jaegerBinary } from "@gateway-keys/testkit/jaeger";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";
import type { SetupPart } from "../../scripts/test-parts.ts";
import { recordSkip } from "./skip-log.ts";

/** OpenAI's OpenAPI document, where CI and developers have it: `shared/` beside the clone (test/support/openai-document.ts). */
export const OPENAI_DOCUMENT = join(REPO_ROOT, "..", "shared", "openai-openapi", "openapi.yaml");

function onPath(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the `pulumi` on PATH is not the CLI scripts/setup builds (with the module patches of
 * scripts/engine/patched-modules), or `undefined` when it is: setup uses a new enough install of
 * your own instead.
 */
function builtPulumiMissing(): string | undefined {
  const engineBin = execFileSync("bash", ["-c", 'source scripts/toolchain.sh && printf %s "$ENGINE_BIN"'], { cwd: REPO_ROOT, encoding: "utf8" });
  if (!existsSync(join(engineBin, "pulumi"))) return `scripts/setup has not built the CLI (${engineBin}): it found a pulumi of your own`;
  let pulumi: string;
  try {
    pulumi = realpathSync(execFileSync("sh", ["-c", "command -v pulumi"], { encoding: "utf8" }).trim());
  } catch {
    return "no pulumi on PATH (run the tests through scripts/run or npm test)";
  }
  const built = realpathSync(join(engineBin, "pulumi"));
  return pulumi === built ? undefined : `the pulumi on PATH is ${pulumi}, not the CLI scripts/setup builds (${built})`;
}

interface Dependency {
  /** Why it is missing here, or `undefined` when it is not. */
  missing(): string | undefined;
  /** The part of scripts/setup that installs it (none: Go, the document and root come from outside). */
  part?: SetupPart;
}

const DEPENDENCIES = {
  postgres: { missing: postgresUnavailableReason, part: "postgres" },
  chromium: { missing: chromiumUnavailableReason, part: "chromium" },
  "espeak-ng": { missing: () => (onPath("espeak-ng") ? undefined : "no espeak-ng on PATH (scripts/setup espeak installs it, as root)"), part: "espeak" },
  jaeger: { missing: () => (onPath(jaegerBinary()) ? undefined : "no jaeger on PATH (scripts/setup jaeger builds it from its Go module)"), part: "jaeger" },
  go: { missing: () => (onPath("go") ? undefined : "no go on PATH (install Go: https://go.dev/dl/)") },
  // No part: scripts/run and npm test always run setup's pulumi part, which builds it unless you have your own.
  "built-pulumi": { missing: builtPulumiMissing },
  "openai-document": { missing: () => (existsSync(OPENAI_DOCUMENT) ? undefined : `${OPENAI_DOCUMENT} is absent`) },
  root: {
    missing: () => (typeof process.getuid === "function" && process.getuid() === 0 ? undefined : "not running as root (mounting a tmpfs needs root)"),
  },
} satisfies Record<string, Dependency>;

/** The part of scripts/setup that installs `dependency`, if one does. */
export function setupPartOf(dependency: DependencyName): SetupPart | undefined {
  return (DEPENDENCIES[dependency] as Dependency).part;
}

/** A dependency a suite can need. */
export type DependencyName = keyof typeof DEPENDENCIES;

/** Dependencies treated as missing whatever the machine has (`GATEWAY_KEYS_WITHOUT`, comma-separated). */
function pretendMissing(): Set<string> {
  return new Set((process.env.GATEWAY_KEYS_WITHOUT ?? "").split(",").map((name) => name.trim()).filter(Boolean));
}

/** Whether this run is CI's: `CI` set to anything but "" / "false" / "0", as CI services and jest read it. */
export function isCi(): boolean {
  const value = process.env.CI;
  return value !== undefined && value !== "" && value !== "false" && value !== "0";
}

/** A dependency missing under CI=true: the run fails, naming it. */
export class MissingDependencyError extends Error {
  constructor(dependency: DependencyName, reason: string) {
    super(`CI=true and ${dependency} is missing: ${reason}. CI installs every dependency (scripts/setup); a test that needs it must not skip there.`);
    this.name = "MissingDependencyError";
  }
}

/**
 * Why `dependency` is missing here, or `undefined` when it is present. Under CI=true a missing
 * dependency throws {@link MissingDependencyError} instead.
 */
export function missing(dependency: DependencyName): string | undefined {
  const reason = pretendMissing().has(dependency) ? `treated as missing (GATEWAY_KEYS_WITHOUT=${process.env.GATEWAY_KEYS_WITHOUT})` : DEPENDENCIES[dependency].missing();
  if (reason !== undefined && isCi()) throw new MissingDependencyError(dependency, reason);
  return reason;
}

type Block = (name: string, fn: () => void) => void;
type Test = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/** The test file jest is loading (where a skip is recorded). */
const testPath = () => expect.getState().testPath ?? "(unknown test file)";

/** `describe` when `dependency` is present; else a `describe.skip` that records why (see the module comment). */
export function describeWith(dependency: DependencyName): Block {
  const reason = missing(dependency);
  if (reason === undefined) return describe;
  return (name, fn) => {
    recordSkip({ testPath: testPath(), title: name, dependency, reason });
    describe.skip(name, fn);
  };
}

/** `test` when `dependency` is present; else a `test.skip` that records why (see the module comment). */
export function testWith(dependency: DependencyName): Test {
  const reason = missing(dependency);
  if (reason === undefined) return test;
  return (name, fn, timeout) => {
    recordSkip({ testPath: testPath(), title: name, dependency, reason });
    test.skip(name, fn, timeout);
  };
}

/**
 * Skips every test of the file being loaded, recording why once for the whole file: for a setup
 * file of a jest project whose every suite needs `dependency` (test/support/postgres-project.js).
 * `describe`, `test` and `it` become their `.skip`s, so jest still lists and counts each test.
 */
export function skipEveryTest(dependency: DependencyName, reason: string, project: string): void {
  recordSkip({ testPath: testPath(), title: "", dependency, reason, project });
  const skipped = <T extends { skip: unknown }>(fn: T) => Object.assign(fn.skip as object, { skip: fn.skip, only: fn.skip });
  Object.assign(globalThis, { describe: skipped(describe), test: skipped(test), it: skipped(it) });
}
