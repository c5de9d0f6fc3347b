/**
 * A Terraform user's working folder outside the repository: examples/terraform copied there, the
 * provider installed from `npm run release`'s zip through a filesystem mirror, and the real `tofu`
 * run in it as a user types it.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

/** What one tofu command did. */
export interface TofuRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr as one line: tofu wraps diagnostics to the terminal's width. */
  said: string;
}

export interface TofuFolder {
  dir: string;
  /** The filesystem mirror the CLI configuration points at. */
  mirror: string;
  run(args: string[], extraEnv?: Record<string, string>): Promise<TofuRun>;
}

/**
 * Makes the folder: the example's .tf files, a mirror in the packed layout
 * (`<host>/gateway-keys/gatewaykeys/<zip>`), and a CLI configuration that installs
 * gateway-keys/* only from it (docs/terraform.md shows the same).
 */
export async function newTofuFolder(zip: string, gateway: { baseUrl: string; provisioningKey: string }): Promise<TofuFolder> {
  const dir = await mkdtemp(join(tmpdir(), "gateway-keys-tofu-"));
  const example = join(REPO_ROOT, "examples", "terraform");
  for (const file of await readdir(example)) {
    if (file.endsWith(".tf")) await copyFile(join(example, file), join(dir, file));
  }
  const mirror = join(dir, "mirror");
  const providerDir = join(mirror, "registry.opentofu.org", "gateway-keys", "gatewaykeys");
  await mkdir(providerDir, { recursive: true });
  await copyFile(zip, join(providerDir, basename(zip)));
  const cliConfig = join(dir, "tofu.rc");
  await writeFile(
    cliConfig,
    [
      "provider_installation {",
      "  filesystem_mirror {",
      `    path    = ${JSON.stringify(mirror)}`,
      '    include = ["registry.opentofu.org/gateway-keys/*"]',
      "  }",
      "  direct {",
      '    exclude = ["registry.opentofu.org/gateway-keys/*"]',
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_IN_AUTOMATION: "1",
    GATEWAY_BASE_URL: gateway.baseUrl,
    GATEWAY_PROVISIONING_KEY: gateway.provisioningKey,
  };
  return {
    dir,
    mirror,
    run: (args, extraEnv = {}) =>
      new Promise((resolve) => {
        execFile("tofu", [...args], { cwd: dir, env: { ...env, ...extraEnv }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? ((error as { code?: unknown }).code as number) : 0;
          resolve({ code: typeof code === "number" ? code : 1, stdout, stderr, said: `${stdout}\n${stderr}`.replace(/\s+/g, " ") });
        });
      }),
  };
}
