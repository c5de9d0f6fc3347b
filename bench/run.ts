/**
 * Runs the benchmarks and prints their tables: `npm run bench` runs all of them, in the order
 * below; `npm run bench -- provider gateway` runs the named ones. Each benchmark measures its own
 * baseline in the same run and prints ratios against it.
 */
import { main as auditCost } from "./audit-cost.ts";
import { main as builds } from "./builds.ts";
import { main as engineFloor } from "./engine-floor.ts";
import { main as gateway } from "./gateway.ts";
import { main as gatewayScale } from "./gateway-scale.ts";
import { main as provider } from "./provider.ts";
import { main as secretUse } from "./secret-use.ts";
import { main as teams } from "./teams.ts";
import { main as tracing } from "./tracing.ts";

const benchmarks: Record<string, () => Promise<unknown>> = {
  "audit-cost": () => auditCost(),
  builds: () => builds(),
  "engine-floor": () => engineFloor(),
  gateway: () => gateway(),
  "gateway-scale": () => gatewayScale(),
  provider: () => provider(),
  "secret-use": () => secretUse(),
  teams: () => teams(),
  tracing: () => tracing(),
};

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; choose from ${Object.keys(benchmarks).join(", ")}`);
  process.exit(2);
}
for (const name of asked.length > 0 ? asked : Object.keys(benchmarks)) {
  console.log(`\n=== ${name} ===`);
  await benchmarks[name]!();
}
