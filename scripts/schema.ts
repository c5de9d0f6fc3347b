/**
 * Writes provider/schema.json, the Pulumi package schema of the native `gatewaykeys` plugin, from the
 * contract's zod schemas (the same function the plugin's GetSchema serves). `npm run schema` after a
 * change of the contract or the inputs; test/provider/native-schema.test.ts fails while it is stale.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, "..");
const { packageSchemaJson } = require(join(root, "provider/dist/native/schema.js"));
const { PLUGIN_VERSION } = require(join(root, "provider/dist/native/version.js"));
const target = join(root, "provider/schema.json");
writeFileSync(target, packageSchemaJson(PLUGIN_VERSION));
console.log(`wrote ${target}`);
