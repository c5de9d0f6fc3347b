/**
 * docs/api/README.md's route index is what the route table generates (run `npm run api-index`
 * when this fails), and it documents every route of the table: each row links the section of
 * docs/api/ that describes the route.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROUTES } from "@gateway-keys/contract";
import { apiRouteIndex, withApiRouteIndex } from "@gateway-keys/testkit/docs";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const API_DOCS = join(REPO_ROOT, "docs", "api");
const README = join(API_DOCS, "README.md");

test("docs/api/README.md's route index is what the route table generates (npm run api-index refreshes it)", () => {
  const readme = readFileSync(README, "utf8");
  expect(readme).toBe(withApiRouteIndex(readme, API_DOCS));
});

test("the index has one row per route of the route table, each linking a section of docs/api/", () => {
  const rows = apiRouteIndex(API_DOCS)
    .split("\n")
    .filter((line) => /^\| `(GET|POST|PATCH|DELETE)` /.test(line));
  expect(rows.map((row) => /`(\w+)` \|$/.exec(row)?.[1])).toEqual(Object.keys(ROUTES));
  for (const row of rows) expect(row).toMatch(/\]\([a-z-]+\.md#[\w-]+\) \|/);
});

test("a route with no section in docs/api/ stops the index with its name", () => {
  // An empty folder of pages documents nothing: the first route is named.
  expect(() => apiRouteIndex(join(REPO_ROOT, "docs", "operators", "providers"))).toThrow(/route listKeys \(GET \/v1\/account\/api-keys\) has no section in docs\/api\//);
});
