/**
 * `gateway serve --console --console-oidc FILE`: what the file must hold, where the client secret
 * comes from, and the flag combinations refused at start (nothing served, the reason on stderr).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { viewableOwners, type OidcAccessRule } from "@gateway-keys/gateway/dist/console/oidc-config";
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

test("a rule naming teams is checked too: each team by its owner and id, and a rule names at least an owner or a team", () => {
  const file = oidcFile("bad-teams.json", {
    ...VALID,
    access: [
      { claim: "groups", value: "a", teams: [{ owner: "acme", teamId: "search-eng" }] },
      { claim: "groups", value: "b", teams: [{ teamId: "team_0r4B9TXiCfin7DT82uB3" }] },
      { claim: "groups", value: "c", owners: [], teams: [] },
      { claim: "groups", value: "d", teams: [{ owner: "acme", teamId: "team_0r4B9TXiCfin7DT82uB3", name: "search" }] },
    ],
  });
  const stderr = refusedStart(["--console", "--console-oidc", file], { GATEWAY_CONSOLE_OIDC_CLIENT_SECRET: "s3cret-value" });
  expect(stderr).toContain("access[0].teams[0].teamId: expected a team id such as team_0r4B9TXiCfin7DT82uB3");
  expect(stderr).toContain("access[1].teams[0].owner: ");
  expect(stderr).toContain("access[2].owners: must name at least one owner, or a team in teams");
  expect(stderr).toContain("access[3].teams[0]: unknown field(s) name");
});

test("what a person may view: each matching rule's owners whole and teams, an owner given whole by any rule whole, in the rules' order", () => {
  const team = (n: number) => `team_${"T".repeat(n)}`;
  const access: OidcAccessRule[] = [
    { claim: "groups", value: "search-eng", teams: [{ owner: "acme", teamId: team(1) }] },
    { claim: "groups", value: "ads-eng", teams: [{ owner: "acme", teamId: team(2) }, { owner: "globex", teamId: team(3) }] },
    { claim: "groups", value: "globex-admins", owners: ["globex"] },
    { claim: "department", value: "finance", owners: ["initech"], teams: [{ owner: "acme", teamId: team(4) }] },
  ];
  expect(viewableOwners(access, { groups: ["search-eng", "ads-eng"] })).toEqual([
    { ownerId: "acme", teamIds: [team(1), team(2)] },
    { ownerId: "globex", teamIds: [team(3)] },
  ]);
  expect(viewableOwners(access, { groups: ["ads-eng", "globex-admins"], department: "finance" })).toEqual([
    { ownerId: "acme", teamIds: [team(2), team(4)] },
    { ownerId: "globex", teamIds: null },
    { ownerId: "initech", teamIds: null },
  ]);
  // A claim of another shape matches nothing.
  expect(viewableOwners(access, { groups: "search-eng,ads-eng", department: { finance: true } })).toEqual([]);
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
