/**
 * Writes the route index of docs/api/README.md (between its markers) from the route table,
 * contract/src/routes.ts: each route's method, path, credential and the page that documents it.
 * `npm run api-index` after adding a route or moving its section; test/docs/api-index.test.ts
 * fails while the index is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withApiRouteIndex } from "@gateway-keys/testkit/docs";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const apiDocs = join(REPO_ROOT, "docs", "api");
const target = join(apiDocs, "README.md");
writeFileSync(target, withApiRouteIndex(readFileSync(target, "utf8"), apiDocs));
console.log(`wrote ${target}`);
