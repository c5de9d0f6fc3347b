/**
 * The gateway's command documents every option it takes: each option `gateway serve --help`
 * lists has its row in gateway/README.md's table, so a flag is never added without its docs.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

test("every option of gateway serve has its row in gateway/README.md", () => {
  const help = execFileSync(process.execPath, [GATEWAY_CLI, "serve", "--help"], { encoding: "utf8" });
  const options = [...new Set([...help.matchAll(/^\s+(--[a-z][a-z-]*)/gm)].map((match) => match[1]!))].filter((option) => option !== "--help");
  expect(options).toEqual(expect.arrayContaining(["--port", "--database", "--database-pool-size", "--drain-timeout"]));
  const readme = readFileSync(join(REPO_ROOT, "gateway", "README.md"), "utf8");
  const tableRows = readme.split("\n").filter((line) => line.startsWith("| `--"));
  // An option in the first column's code span, alone or beside another (`--bootstrap --owner <id>`).
  const documented = (option: string) => tableRows.some((row) => new RegExp(`^\\| \`[^\`]*${option}[ \`]`).test(row));
  const undocumented = options.filter((option) => !documented(option));
  expect(undocumented).toEqual([]);
});
