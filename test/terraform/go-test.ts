/**
 * Runs the Terraform provider's Go tests (terraform/) as `go test -json` and reads each test's
 * outcome, so jest can require every acceptance test to pass — a skip counts as a failure.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

export const TERRAFORM_DIR = join(REPO_ROOT, "terraform");

/** One test's outcome (`pass`, `fail`, `skip`, or undefined when it never ran) and everything it printed. */
export interface GoTestResult {
  action?: string;
  output: string;
}

/** Runs `go test -json` with `args` in terraform/, under `env`; resolves with each test's result and the whole output. */
export function goTest(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ results: Map<string, GoTestResult>; exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", ["test", "-json", "-count=1", ...args], { cwd: TERRAFORM_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      const results = new Map<string, GoTestResult>();
      let output = stderr;
      for (const line of stdout.split("\n")) {
        if (!line.startsWith("{")) {
          output += `${line}\n`;
          continue;
        }
        const event = JSON.parse(line) as { Action: string; Test?: string; Output?: string };
        output += event.Output ?? "";
        if (!event.Test) continue;
        const name = event.Test.split("/")[0]!;
        const result = results.get(name) ?? { output: "" };
        result.output += event.Output ?? "";
        if (["pass", "fail", "skip"].includes(event.Action) && !event.Test.includes("/")) result.action = event.Action;
        results.set(name, result);
      }
      resolve({ results, exitCode, output });
    });
  });
}
