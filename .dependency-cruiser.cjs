/**
 * The layering of the gateway and the provider, checked by dependency-cruiser
 * (test/architecture.test.ts runs it): no import cycle, and no import from a lower layer to a
 * higher one. A layer is a folder or a file directly under src/; the lists go from the bottom up.
 */

/** gateway/src, bottom up: each may import only what is on its own level or below. */
const GATEWAY_LAYERS = [
  ["errors.ts", "crypto.ts"],
  // Transport to providers; spend, rate limits and prices, with the interfaces the stores implement.
  ["upstream", "metering"],
  ["store"],
  ["http", "keys", "encryption-key.ts"],
  // Wires (reading, relaying, translating, answering) and the operator's side (metrics, health, OpenAPI).
  ["inference", "ops"],
  ["models"],
  ["context.ts"],
  // The audit trail and webhooks (outbox, deliverer, alerts) use the context, store and metrics.
  ["auth", "idempotency", "policies", "audit", "webhooks"],
  // The model-call pipeline: authenticate, admit, engine, settle, log.
  ["pipeline", "console"],
  ["routes"],
  ["app.ts"],
  ["server.ts", "openapi-document.ts"],
  // The command: serving, offline key tools, and (cli/) clients of a running gateway's account API.
  ["cli.ts", "cli", "index.ts"],
];

/** provider/src, bottom up. */
const PROVIDER_LAYERS = [
  ["runtime"],
  ["inputs.ts"],
  ["provider-module.ts"],
  ["native", "api-key-base.ts", "webhook-base.ts"],
  ["api-key.ts", "webhook.ts"],
  ["api-key-pair.ts"],
  ["index.ts"],
];

const escape = (name) => name.replace(/[.]/g, "\\.");
/** A path pattern for a layer's members under `root`. */
const layerPattern = (root, members) => `^${escape(root)}/(${members.map((member) => (member.endsWith(".ts") ? `${escape(member)}$` : `${escape(member)}/`)).join("|")})`;

/** One rule per layer: nothing in it imports a layer above it. */
function layerRules(root, layers) {
  return layers.slice(0, -1).map((members, index) => ({
    name: `${root} layer ${index}: no import upward`,
    comment: `${members.join(", ")} may import only layers 0-${index} of ${root} (.dependency-cruiser.cjs)`,
    severity: "error",
    from: { path: layerPattern(root, members) },
    to: { path: layerPattern(root, layers.slice(index + 1).flat()) },
  }));
}

/** Every file under `root` must belong to a layer, so a new folder is placed on purpose. */
function placedRule(root, layers) {
  return {
    name: `${root}: every file in a layer`,
    comment: `a file of ${root} outside every layer of .dependency-cruiser.cjs: add its folder or file to a layer`,
    severity: "error",
    from: { path: `^${escape(root)}/` },
    to: { path: `^${escape(root)}/`, pathNot: layerPattern(root, layers.flat()) },
  };
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle: break it by moving what both sides need to a module below them",
      severity: "error",
      from: { path: "^(gateway|provider)/src/" },
      to: { circular: true },
    },
    ...layerRules("gateway/src", GATEWAY_LAYERS),
    placedRule("gateway/src", GATEWAY_LAYERS),
    ...layerRules("provider/src", PROVIDER_LAYERS),
    placedRule("provider/src", PROVIDER_LAYERS),
  ],
  options: {
    // Type-only imports count: a cycle through types is a cycle of meaning.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
  },
};
