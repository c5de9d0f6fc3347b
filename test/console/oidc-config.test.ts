/**
 * `gateway serve --console --console-oidc FILE`: what the file must hold, where the client secret
 * comes from, and the flag combinations refused at start (nothing served, the reason on stderr).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "console-oidc-config-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALID = {
  issuer: "https://login.example.com",
  clientId: "gateway-console",
  redirectUrl: "https://gateway.example.com/console/oidc/callback",
  access: [{ claim: "groups", value: "search-team", owners: ["search"] }],
};

/** `gateway serve` with these arguments and variables; it must refuse to start. */
function refusedStart(args: string[], env: Record<string, string> = {}): string {
  const environment = { ...process.env, ...env };
  if (!("GATEWAY_CONSOLE_OIDC_CLIENT_SECRET" in env)) delete environment.GATEWAY_CONSOLE_OIDC_CLIENT_SECRET;
  const run = spawnSync(process.execPath, [GATEWAY_CLI, "serve", "--port", "0", "--db", join(dir, "refused.db"), ...args], { env: environment, encoding: "utf8", timeout: 30_000 });
  expect(run.status).not.toBe(0);
  expect(run.stdout).not.toContain("gateway listening");
  return run.stderr;
}

function oidcFile(name: string, content: object): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

test("a file with a wrong field is refused, naming the field and what is allowed, and never the secret", () => {
  const file = oidcFile("bad.json", { ...VALID, issuer: "http://login.example.com", redirectUrl: "https://gateway.example.com/elsewhere", access: [{ claim: "groups", value: "x", owners: [] }], extra: 1 });
  const stderr = refusedStart(["--console", "--console-oidc", file], { GATEWAY_CONSOLE_OIDC_CLIENT_SECRET: "s3cret-value" });
  expect(stderr).toContain(`the console OIDC file ${file} is not valid`);
  expect(stderr).toContain("issuer: expected an https URL (plain http only on 127.0.0.1, ::1 or localhost)");
  expect(stderr).toContain("redirectUrl: expected the gateway's /console/oidc/callback URL");
  expect(stderr).toContain("access[0].owners: must name at least one owner");
  expect(stderr).toContain("unknown field(s) extra");
  expect(stderr).not.toContain("s3cret-value");
});

test("without a client secret file or variable it is refused, naming both", () => {
  const file = oidcFile("no-secret.json", VALID);
  expect(refusedStart(["--console", "--console-oidc", file])).toContain(
    `the console OIDC client secret is missing: name a file in clientSecretFile (${file}) or set GATEWAY_CONSOLE_OIDC_CLIENT_SECRET`,
  );
  const unreadable = oidcFile("unreadable-secret.json", { ...VALID, clientSecretFile: join(dir, "absent") });
  expect(refusedStart(["--console", "--console-oidc", unreadable])).toContain(`cannot read the client secret file ${join(dir, "absent")}`);
});

test("--console-oidc needs --console, and --no-console-key-sign-in needs --console-oidc", () => {
  const file = oidcFile("valid.json", VALID);
  expect(refusedStart(["--console-oidc", file], { GATEWAY_CONSOLE_OIDC_CLIENT_SECRET: "s3cret-value" })).toContain("--console-oidc signs people in to the console: add --console");
  expect(refusedStart(["--console", "--no-console-key-sign-in"])).toContain("--no-console-key-sign-in leaves the console with no way to sign in: add --console-oidc <file>");
});
