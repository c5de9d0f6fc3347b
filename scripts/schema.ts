/**
 * Writes provider/schema.json, the Pulumi package schema of the native `gatewaykeys` plugin, from the
 * contract's zod schemas (the same function the plugin's GetSchema serves). `npm run schema` after a
 * change of the contract or the inputs; test/provider/native-schema.test.ts fails while it is stale.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

// The plugin's modules are not among the provider package's exports: loaded from its build by path.
// (`import.meta` would not type-check: test/tsconfig.json checks scripts/ as CommonJS.)
const requireFromRoot = createRequire(join(REPO_ROOT, "package.json"));
const { packageSchemaJson } = requireFromRoot(join(REPO_ROOT, "provider/dist/native/schema.js"));
const { PLUGIN_VERSION } = requireFromRoot(join(REPO_ROOT, "provider/dist/native/version.js"));
const target = join(REPO_ROOT, "provider/schema.json");
writeFileSync(target, packageSchemaJson(PLUGIN_VERSION));
console.log(`wrote ${target}`);
