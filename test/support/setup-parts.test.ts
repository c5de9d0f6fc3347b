/**
 * `npm test` installs what the tests it runs need (scripts/test.ts): the map from test paths to
 * scripts/setup's parts (scripts/test-parts.ts) must cover every dependency a test file declares
 * with test/support/needs.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";
import { partsFor } from "../../scripts/test-parts";
import { setupPartOf, type DependencyName } from "./needs";

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(REPO_ROOT, path)] : [];
  });
}

/** The dependencies a test file declares: `describeWith("…")`, `testWith("…")`, `missing("…")`. */
function declaredDependencies(file: string): DependencyName[] {
  const source = readFileSync(join(REPO_ROOT, file), "utf8");
  return [...source.matchAll(/\b(?:describeWith|testWith|missing)\("([a-z-]+)"\)/g)].map((match) => match[1] as DependencyName);
}

test("every dependency a test file declares is installed for it by `npm test`", () => {
  const declared = testFiles(join(REPO_ROOT, "test")).flatMap((file) => declaredDependencies(file).map((dependency) => ({ file, dependency })));
  // The check below is about something: the suites that skip without a dependency declare it.
  expect(declared.map(({ dependency }) => dependency)).toEqual(expect.arrayContaining(["postgres", "chromium", "espeak-ng", "go", "openai-document", "root"]));
  const uncovered = declared
    .filter(({ dependency }) => setupPartOf(dependency) !== undefined)
    .filter(({ file, dependency }) => !partsFor([file]).includes(setupPartOf(dependency)!));
  expect(uncovered).toEqual([]);
});

test("the parts follow the selected files and projects", () => {
  expect(partsFor(["test/contract/key-id.test.ts", "test/e2e/api-key.test.ts"])).toEqual([]);
  expect(partsFor(["test/terraform/acceptance.test.ts"])).toEqual(["tofu"]);
  expect(partsFor(["test/deploy/helm.test.ts"]).sort()).toEqual(["containers", "helm", "postgres"]);
  expect(partsFor(["test/gateway/model-api-espeak.test.ts"]).sort()).toEqual(["espeak", "postgres"]);
  // The gateway suites need PostgreSQL only for the postgres project's runs of them.
  expect(partsFor(["test/gateway/rotation-grace.test.ts"], ["sqlite"])).toEqual([]);
  expect(partsFor(["test/gateway/rotation-grace.test.ts"], ["postgres"])).toEqual(["postgres"]);
  expect(partsFor(["test/faults/postgres-faults.test.ts"], ["sqlite"])).toEqual(["postgres"]);
});
