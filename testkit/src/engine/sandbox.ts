import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import * as auto from "@pulumi/pulumi/automation/index.js";
import { REPO_ROOT } from "../repo-root.ts";

/** Parent of the inline programs' folders (see `create`); git ignores it, jest's teardown sweeps it. */
const WORKSPACES_DIR = "testkit/.workspaces";
/** The file in each inline program's folder naming the process that made it (its pid). */
const WORKSPACE_OWNER_FILE = ".owner-pid";
/** Preloaded into every Node process the CLI starts (the file says why). */
const DEFER_UNUSED_MODULES = resolve(REPO_ROOT, "testkit/src/engine/defer-unused-modules.cjs");

/**
 * The CLI, its version read once per process: a workspace made without one runs `pulumi version`
 * again for every stack.
 */
let pulumiCommand: Promise<auto.PulumiCommand> | undefined;
const cli = () => (pulumiCommand ??= auto.PulumiCommand.get());

/** Stack configuration: plain values, and values set as Pulumi secrets (`pulumi config set --secret`). */
export interface StackConfig {
  plain?: Record<string, string>;
  secret?: Record<string, string>;
}

/**
 * A throw-away Pulumi environment for one test: its own `file://` backend, its own PULUMI_HOME,
 * passphrase secrets, no update checks and no plugin downloads, so nothing leaves the machine.
 * `dispose()` removes the backend and every stack's config file.
 */
export class EngineSandbox {
  private readonly stacks: auto.Stack[] = [];
  /** Folder of the `file://` backend: every state file the engine writes lands here. */
  readonly backendDir: string;
  /** Environment given to every engine command of this sandbox. */
  readonly env: Record<string, string>;
  private readonly scratchDir: string;
  private readonly inlineWorkDir: string;

  private constructor(backendDir: string, scratchDir: string, inlineWorkDir: string, env: Record<string, string>) {
    this.backendDir = backendDir;
    this.scratchDir = scratchDir;
    this.inlineWorkDir = inlineWorkDir;
    this.env = env;
  }

  static async create(extraEnv: Record<string, string> = {}): Promise<EngineSandbox> {
    const scratch = await mkdtemp(join(tmpdir(), "gateway-keys-e2e-"));
    const backendDir = join(scratch, "backend");
    const home = join(scratch, "pulumi-home");
    // Inline programs run in a folder inside the repository: the dynamic-provider plugin resolves
    // `@pulumi/pulumi` and the provider's implementation from the program's folder.
    const inlineWorkDir = join(REPO_ROOT, WORKSPACES_DIR, scratch.split("-").pop()!);
    await Promise.all([mkdir(backendDir), mkdir(home), mkdir(inlineWorkDir, { recursive: true })]);
    // Whose folder this is: jest's teardown sweep (test/support/sweep-leftovers.js) leaves the
    // folders (and project stack files, see projectStack) of processes still running alone, so one
    // test run never pulls another's from under it.
    await writeFile(join(inlineWorkDir, WORKSPACE_OWNER_FILE), String(process.pid));
    const env = {
      // `metadata=skip`: the file backend's blob library otherwise keeps a sidecar `.attrs` file
      // beside each state file and rewrites it in place, truncating first, so a CLI killed at that
      // instant leaves it empty and every later command fails with "failed to load checkpoint:
      // EOF" before the provider is asked anything. The state files themselves are replaced
      // atomically; nothing here needs the sidecars, and the crash trials are about the provider.
      PULUMI_BACKEND_URL: `file://${backendDir}?metadata=skip`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase-not-a-secret",
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      // The CLI is started several times per operation and most of its CPU goes to collecting
      // the garbage of its start-up; a test's CLI never comes near the limit that collects instead.
      GOGC: "off",
      GOMEMLIMIT: "1GiB",
      // The dynamic provider's process, started for every engine operation, skips loading modules
      // it never uses; the compile cache and the warnings' settings of scripts/run still apply.
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require "${DEFER_UNUSED_MODULES}"`].filter(Boolean).join(" "),
      ...extraEnv,
    };
    return new EngineSandbox(backendDir, scratch, inlineWorkDir, env);
  }

  /** A stack whose program is a function in this process (Automation API inline program). */
  async inlineStack(projectName: string, program: auto.PulumiFn, config: StackConfig = {}): Promise<auto.Stack> {
    const stack = await auto.LocalWorkspace.createStack(
      // Stack names are unique within the sandbox, so one sandbox can hold several stacks.
      { projectName, stackName: `e2e-${this.stacks.length + 1}`, program },
      {
        workDir: this.inlineWorkDir,
        pulumiCommand: await cli(),
        pulumiHome: this.env.PULUMI_HOME,
        envVars: this.env,
        secretsProvider: "passphrase",
        projectSettings: { name: projectName, runtime: "nodejs", backend: { url: this.env.PULUMI_BACKEND_URL! } },
      },
    );
    return this.track(stack, config);
  }

  /**
   * A stack of a project folder with its own `Pulumi.yaml`, run the way a user runs it: the CLI
   * starts the Node language host, which runs the folder's program. `stackPrefix` (default `e2e`)
   * starts the stack's name, so a caller can tell its own Pulumi.<stack>.yaml from others'.
   */
  async projectStack(projectDir: string, config: StackConfig = {}, stackPrefix = "e2e"): Promise<auto.Stack> {
    // A unique stack name per sandbox: the project folder is shared, and its Pulumi.<stack>.yaml
    // is the only file the engine writes there.
    const stackName = `${stackPrefix}-${this.scratchDir.split("-").pop()!.toLowerCase()}`;
    const workDir = resolve(REPO_ROOT, projectDir);
    // `npm run typecheck` checks the repository's own programs (test/tsconfig.json includes them), so
    // Pulumi's TypeScript runner only transpiles them rather than type-check them again on every
    // operation. A program outside the repository (test/e2e/outside-project) is still checked by it.
    const checkedByTypecheck = !relative(REPO_ROOT, workDir).startsWith("..");
    const envVars = checkedByTypecheck ? { ...this.env, PULUMI_NODEJS_TRANSPILE_ONLY: "true" } : this.env;
    const stack = await auto.LocalWorkspace.createStack(
      { stackName, workDir },
      { pulumiCommand: await cli(), pulumiHome: this.env.PULUMI_HOME, envVars, secretsProvider: "passphrase" },
    );
    return this.track(stack, config);
  }

  private async track(stack: auto.Stack, config: StackConfig): Promise<auto.Stack> {
    this.stacks.push(stack);
    await setStackConfig(stack, config);
    return stack;
  }

  /**
   * Removes every stack's Pulumi.<stack>.yaml and every temporary folder. The stacks themselves go
   * with their backend's folder: nothing else reads that backend, so a `pulumi stack rm` (a CLI
   * start per stack) would only delete files about to be deleted.
   */
  async dispose(): Promise<void> {
    await Promise.all(this.stacks.map((stack) => rm(join(stack.workspace.workDir, `Pulumi.${stack.name}.yaml`), { force: true })));
    await rm(this.inlineWorkDir, { recursive: true, force: true });
    await rm(this.scratchDir, { recursive: true, force: true });
  }
}

/** Sets stack config the way `pulumi config set [--secret]` does. */
export async function setStackConfig(stack: auto.Stack, config: StackConfig): Promise<void> {
  const values: auto.ConfigMap = {};
  for (const [key, value] of Object.entries(config.plain ?? {})) values[key] = { value, secret: false };
  for (const [key, value] of Object.entries(config.secret ?? {})) values[key] = { value, secret: true };
  if (Object.keys(values).length > 0) await stack.setAllConfig(values);
}
