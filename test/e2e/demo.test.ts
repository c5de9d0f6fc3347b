import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node scripts/demo.ts` from the repository root, with this process's environment (and so its
 * toolchain), and a temp folder of its own so that what it leaves behind is its own.
 */
function runDemo(scratch: string, args: string[] = [], whenSaid?: { text: RegExp; then: (stdout: string, stop: () => void) => void }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "scripts/demo.ts", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, TMPDIR: scratch },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let heard = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (whenSaid && !heard && whenSaid.text.test(stdout)) {
        heard = true;
        whenSaid.then(stdout, () => child.kill("SIGINT"));
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const demoStackFiles = () => readdirSync(REPO_ROOT).filter((name) => /^Pulumi\.demo-.*\.yaml$/.test(name));

/** `npm run demo`, the README's first command, run the way a newcomer runs it. */
describe("npm run demo", () => {
  let run: Finished;
  const scratch = mkdtempSync(join(tmpdir(), "demo-test-"));

  beforeAll(async () => {
    run = await runDemo(scratch);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("exits 0 and says nothing on stderr", () => {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("walks through the six numbered steps, each with the result it checked", () => {
    const lines = [
      /^1\. pulumi preview: the plan\n {3}\+ create ApiKey "quickstart"$/m,
      /^2\. pulumi up: the key is created\n {3}key_\w+, version 1, secret gwk_\.\.\.\w{4} /m,
      /^3\. the key calls a model: POST \/v1\/responses \(echo-1\)\n {3}200 "hello from the demo"$/m,
      /^4\. policy change: .*\n {3}preview {2}~ update ApiKey "quickstart" in place: spendPolicy\.limitUnits "100" -> "250"$/m,
      /^ {3}up {7}version 1 -> 2, same key and secret; the gateway caps it at 250 units$/m,
      /^5\. rotation: .*\n {3}preview {2}~ update ApiKey "quickstart" in place: rotationTrigger "1" -> "2", secret \(none\) -> \[unknown\] \(a rotation, not a replacement\)$/m,
      /^ {3}up {7}same key key_\w+, version 2 -> 3, new secret gwk_\.\.\.\w{4}$/m,
      /old secret gwk_\.\.\.\w{4} -> 401, new secret gwk_\.\.\.\w{4} -> 200$/m,
      /^6\. pulumi destroy: the key is revoked\n {3}secret gwk_\.\.\.\w{4} -> 401; the gateway lists key_\w+ as revoked$/m,
      /^Done in \d+ s: every step checked\./m,
      /^console {2}http:\/\/127\.0\.0\.1:\d+\/console#\/keys\/key_\w+ {2}\(the gateway stops now; `npm run demo -- --keep` keeps it up/m,
    ];
    for (const line of lines) expect(run.stdout).toMatch(line);
  });

  it("shows only hints of secrets, never a key or the provisioning key", () => {
    const output = run.stdout + run.stderr;
    expect(output).toMatch(/gwp_\.\.\.\w{4}/);
    expect(output.match(/gw[kp]_(?!\.\.\.\w{4}\b)\S*/g) ?? []).toEqual([]);
  });

  it("leaves no stack file in the repository and no temporary folder behind", () => {
    expect(demoStackFiles()).toEqual([]);
    // The demo's folders (its gateway's and the engine sandbox's) are named gateway-keys-*; the
    // engine's TypeScript compiler keeps a cache of its own there, which is not the demo's to remove.
    expect(readdirSync(scratch).filter((name) => name.startsWith("gateway-keys-"))).toEqual([]);
  });
});

describe("npm run demo -- --keep", () => {
  const scratch = mkdtempSync(join(tmpdir(), "demo-keep-test-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("keeps the gateway up with the console for the demo's key, the provisioning key in a file only its owner reads, until Ctrl-C", async () => {
    const seen: { console?: number; signIn?: number; keyFileMode?: number; keyFile?: string } = {};
    const run = await runDemo(scratch, ["--keep"], {
      text: /sign in with the provisioning key in (\S+) /,
      then: (stdout, stop) => {
        const url = /^console {2}(\S+)$/m.exec(stdout)![1]!;
        const keyFile = /sign in with the provisioning key in (\S+) /.exec(stdout)![1]!;
        seen.keyFile = keyFile;
        seen.keyFileMode = statSync(keyFile).mode & 0o777;
        const origin = new URL(url).origin;
        void (async () => {
          seen.console = (await fetch(url)).status;
          const signIn = await fetch(`${origin}/console/session`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ provisioningKey: readFileSync(keyFile, "utf8").trim() }),
          });
          seen.signIn = signIn.status;
          stop();
        })();
      },
    });
    expect(run.code).toBe(0);
    expect(seen).toMatchObject({ console: 200, signIn: 200, keyFileMode: 0o600 });
    // Ctrl-C cleaned everything up, the key file too.
    expect(existsSync(seen.keyFile!)).toBe(false);
    expect(run.stdout.match(/gw[kp]_(?!\.\.\.\w{4}\b)\S*/g) ?? []).toEqual([]);
  });
});
