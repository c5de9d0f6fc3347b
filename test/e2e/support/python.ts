/**
 * Python programs through the real engine: venvs made the way a user makes one (offline here: the
 * `pulumi` SDK's wheel that scripts/setup built stands in for PyPI), and the CLI run on a project
 * folder with PULUMI_PYTHON_CMD naming the venv's interpreter (the 3.259 CLI passes the Python host
 * no virtualenv option).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, type EngineSandbox } from "@gateway-keys/testkit/engine";

const run = promisify(execFile);

/** Debian's interpreter, which has the `pulumi` SDK's dependencies (grpcio, protobuf...) installed. */
const SYSTEM_PYTHON = "/usr/bin/python3";

/** The `pulumi` Python SDK's wheel (scripts/run exports its path); missing, the test fails saying what to run. */
export function pulumiPythonWheel(): string {
  const wheel = process.env.GATEWAY_KEYS_PULUMI_PYTHON_WHEEL;
  if (!wheel || !existsSync(wheel) || !existsSync(SYSTEM_PYTHON)) {
    throw new Error(
      `no pulumi Python SDK wheel (GATEWAY_KEYS_PULUMI_PYTHON_WHEEL=${wheel ?? ""}) or no ${SYSTEM_PYTHON}: ` +
        "run scripts/setup as root, and the tests through scripts/run (npm test)",
    );
  }
  return wheel;
}

/**
 * Makes a venv in `dir` over Debian's site packages and installs `packages` (wheel files) with pip,
 * resolving their requirements (`pulumi`) from the SDK wheel's folder and nothing else; returns its
 * interpreter.
 */
export async function makeVenv(dir: string, packages: string[]): Promise<string> {
  const wheels = dirname(pulumiPythonWheel());
  await run(SYSTEM_PYTHON, ["-m", "venv", "--system-site-packages", dir]);
  await run(join(dir, "bin", "pip"), ["install", "--quiet", "--no-index", "--find-links", wheels, "pulumi", ...packages]);
  return join(dir, "bin", "python");
}

/** What one CLI command printed, and how it ended. */
export interface CliRun {
  code: number;
  output: string;
}

/**
 * Runs the real CLI in a Python project folder with the sandbox's environment (backend, PULUMI_HOME,
 * passphrase) and `python` as the program's interpreter. Never throws for a failing command: the
 * caller asserts on `code` and `output` (stdout then stderr).
 */
export async function pulumiPython(sandbox: EngineSandbox, projectDir: string, python: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  const env = {
    ...process.env,
    ...sandbox.env,
    // The CLI and its bundled hosts from scripts/setup first.
    PATH: `${join(REPO_ROOT, ".toolchain/bin")}:${process.env.PATH}`,
    PULUMI_PYTHON_CMD: python,
    ...extraEnv,
  };
  try {
    const { stdout, stderr } = await run("pulumi", [...args, "--non-interactive"], { cwd: projectDir, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, output: (failed.stdout ?? "") + (failed.stderr ?? "") };
  }
}

/** Like `pulumiPython`, but a failing command fails the test with what it printed. */
export async function pulumiPythonOk(sandbox: EngineSandbox, projectDir: string, python: string, args: string[]): Promise<string> {
  const result = await pulumiPython(sandbox, projectDir, python, args);
  if (result.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited with ${result.code}:\n${result.output}`);
  return result.output;
}
