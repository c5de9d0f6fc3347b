import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { EngineSandbox } from "@gateway-keys/testkit/engine";
import { testWith } from "../support/needs";

const run = promisify(execFile);

/**
 * The CLI that scripts/setup builds links modules patched to do on first use the work their package
 * inits did at every start (scripts/engine/patched-modules/README.md): the first test checks that it is
 * the one the tests run, and the others that what the patched code does still happens, with any CLI.
 */
describe("the Pulumi CLI's start-up", () => {
  testWith("built-pulumi")("parses no password-strength word lists and compiles no JSON schemas when nothing asks for them", async () => {
    const { stderr } = await run("pulumi", ["version"], { env: { ...process.env, GODEBUG: "inittrace=1" } });
    // `init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs`, one line per package.
    const inits = [...stderr.matchAll(/^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, \d+ allocs$/gm)];
    const patched = inits
      .filter(([, name]) => /\/zxcvbn-go\/(frequency|matching)$|\/pkg\/v3\/(codegen\/schema|resource\/stack)$/.test(name!))
      .map(([, name, bytes]) => ({ name, bytes: Number(bytes) }));
    // Every patched package is linked and traced: the check below is about something.
    expect(patched.map(({ name }) => name).sort()).toEqual([
      "github.com/ccojocar/zxcvbn-go/frequency",
      "github.com/ccojocar/zxcvbn-go/matching",
      "github.com/nbutton23/zxcvbn-go/frequency",
      "github.com/nbutton23/zxcvbn-go/matching",
      "github.com/pulumi/pulumi/pkg/v3/codegen/schema",
      "github.com/pulumi/pulumi/pkg/v3/resource/stack",
    ]);
    // Unpatched, each of these inits allocates 2–10 MB (the parsed word lists and their matchers, the
    // compiled schemas); patched, at most a few hundred kB.
    expect(patched.filter(({ bytes }) => bytes > 1_000_000)).toEqual([]);
  });

  it("still refuses a plaintext config value that looks like a secret, and takes one that does not", async () => {
    const sandbox = await EngineSandbox.create();
    const project = await mkdtemp(join(tmpdir(), "gateway-keys-start-up-"));
    try {
      await writeFile(join(project, "Pulumi.yaml"), "name: start-up\nruntime: nodejs\n");
      const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], { cwd: project, env: { ...process.env, ...sandbox.env } });
      await pulumi("stack", "init", "start-up");
      // The password-strength check runs here, on first use: a random-looking value under a key named like a secret.
      const refused = await pulumi("config", "set", "apiToken", "Zq8#vR2!mW9$kL4@").then(
        () => "accepted",
        (error: { stderr: string }) => error.stderr,
      );
      expect(refused).toContain("config value for 'start-up:apiToken' looks like a secret");
      await pulumi("config", "set", "apiToken", "aaaaaaaa");
      const { stdout } = await pulumi("config", "get", "apiToken");
      expect(stdout.trim()).toBe("aaaaaaaa");
    } finally {
      await rm(project, { recursive: true, force: true });
      await sandbox.dispose();
    }
  });

  it("still validates a package schema against the meta-schema", async () => {
    const sandbox = await EngineSandbox.create();
    const folder = await mkdtemp(join(tmpdir(), "gateway-keys-start-up-"));
    try {
      // The meta-schema is compiled here, on first use: a property of a type that does not exist.
      const schema = { name: "startup", version: "1.0.0", resources: { "startup:index:Thing": { properties: { size: { type: "strin" } } } } };
      await writeFile(join(folder, "schema.json"), JSON.stringify(schema));
      const args = ["package", "gen-sdk", "schema.json", "--language", "nodejs", "--out", "sdk", "--non-interactive"];
      const refused = await run("pulumi", args, { cwd: folder, env: { ...process.env, ...sandbox.env } }).then(
        () => "accepted",
        (error: { stderr: string }) => error.stderr,
      );
      expect(refused).toContain("#/resources/startup:index:Thing/properties/size: doesn't validate with '/$defs/typeSpec'");
    } finally {
      await rm(folder, { recursive: true, force: true });
      await sandbox.dispose();
    }
  });
});
