/**
 * Writes docs/openapi.json, the gateway's OpenAPI document, from the routes' schemas (the contract's
 * zod schemas) exactly as `GET /openapi.json` serves it. `npm run openapi` after changing a route
 * or the contract; test/gateway/openapi.test.ts fails while the file is stale.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocumentText } from "@gateway-keys/gateway";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const target = join(REPO_ROOT, "docs", "openapi.json");
openApiDocumentText().then(
  (text) => {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
