import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The repository root: Pulumi programs must run inside it so `@pulumi/pulumi` and our packages
 * resolve, and the gateway's CLI is found from it. Found from the working folder (npm scripts and
 * jest run at the root) because this package runs both as CommonJS (jest) and as ES modules (Node
 * type stripping: demo, bench), and neither `__dirname` nor `import.meta` exists in both.
 */
export const REPO_ROOT = findRepoRoot(process.cwd());

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "tsconfig.base.json")) && existsSync(join(dir, "provider/package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`run from inside the gateway-keys repository (cwd: ${start})`);
  }
}
