/**
 * The layering of every TypeScript package, checked by dependency-cruiser
 * (test/architecture/dependencies.test.ts runs it): no import cycle, no import from a lower layer to
 * a higher one, and no package importing one it must not know. A layer is a folder or a file under
 * src/; the lists go from the bottom up.
 */

/** gateway/src, bottom up: each may import only what is on its own level or below. */
const GATEWAY_LAYERS = [
  ["errors.ts", "crypto.ts"],
  // Transport to providers; spend, rate limits and prices, with the interfaces the stores implement.
  ["upstream", "metering"],
  ["store"],
  ["http", "keys", "teams", "encryption-key.ts"],
  // Wires (reading, relaying, translating, answering) and the operator's side (metrics, health, traces, OpenAPI).
  ["inference", "ops", "telemetry"],
  ["models"],
  // One dispatch for every model call: a request's routes (choose-route), the attempt loop, every call to a provider.
  ["dispatch"],
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

/** contract/src, bottom up: the wire objects, from primitives to the route table. */
const CONTRACT_LAYERS = [
  // Primitives with no import of their own, and the model APIs' wire shapes (which import only each other).
  ["units.ts", "key-alerts.ts", "canonical-json.ts", "credentials.ts", "errors.ts", "headers.ts", "health.ts", "list.ts", "models.ts", "principal.ts", "scopes.ts", "validation.ts", "model-api"],
  ["policies.ts", "reading.ts", "label-selector.ts"],
  ["api-key.ts", "spend-windows.ts"],
  // secret-use-rule.ts holds no zod, so the console can take the rule without the schemas.
  ["audit.ts", "usage.ts", "route-inputs.ts", "secret-use-rule.ts", "bulk-rotation.ts", "teams.ts"],
  ["webhooks.ts"],
  ["routes.ts"],
  ["schema-names.ts"],
  ["index.ts"],
];

/**
 * sdk/src, bottom up, as openai-node lays a client out: private helpers (internal/, which report a
 * problem and let the client throw), the public building blocks (core/: errors, pagination, the
 * promise, the interface resources call), the resources, the client that builds them, the entry.
 */
const SDK_LAYERS = [["version.ts", "internal"], ["core"], ["resources"], ["client.ts"], ["index.ts"]];

/** console/src, bottom up: the API calls and formatting, components, pages, the app. */
const CONSOLE_LAYERS = [["api.ts", "format.ts", "series.ts", "app.css"], ["components"], ["pages"], ["main.tsx"]];

/** testkit/src, bottom up: standalone helpers, what builds on them, the entry that gathers them. */
const TESTKIT_LAYERS = [
  ["repo-root.ts", "free-port.ts", "chromium.ts", "postgres.ts", "jaeger.ts", "browser.ts", "docs.ts", "request-recorder.ts", "tcp-proxy.ts", "scripted-provider.ts"],
  ["engine", "gateway-process.ts", "test-gateway.ts", "scripted-azure.ts", "scripted-bedrock.ts", "scripted-google.ts"],
  ["index.ts"],
];

/** provider/src, bottom up. */
const PROVIDER_LAYERS = [
  ["runtime"],
  ["inputs.ts"],
  ["provider-module.ts"],
  ["native", "api-key-base.ts", "webhook-base.ts", "team-base.ts"],
  ["api-key.ts", "webhook.ts", "team.ts"],
  ["api-key-pair.ts"],
  ["index.ts"],
];

const escape = (name) => name.replace(/[.]/g, "\\.");
/** A path pattern for a layer's members under `root`. */
const isFile = (member) => /[.][a-z]+$/.test(member);
const layerPattern = (root, members) => `^${escape(root)}/(${members.map((member) => (isFile(member) ? `${escape(member)}$` : `${escape(member)}/`)).join("|")})`;

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

/** Every layered tree: its root and its layers. */
const TREES = [
  ["contract/src", CONTRACT_LAYERS],
  ["sdk/src", SDK_LAYERS],
  ["gateway/src", GATEWAY_LAYERS],
  ["console/src", CONSOLE_LAYERS],
  ["provider/src", PROVIDER_LAYERS],
  ["testkit/src", TESTKIT_LAYERS],
];

/**
 * Which packages each may import (by name, or by a path into it), so the graph of packages stays
 * as the README draws it: the contract at the bottom, knowing no other package; the SDK and the
 * console on the contract alone; nothing but tests and the testkit reaching into testkit/ or test/.
 */
const PACKAGE_RULES = [
  { from: "contract/src", mayNot: ["sdk", "gateway", "console", "provider", "policy", "testkit", "test"] },
  { from: "sdk/src", mayNot: ["gateway", "console", "provider", "policy", "testkit", "test"] },
  { from: "console/src", mayNot: ["sdk", "gateway", "provider", "policy", "testkit", "test"] },
  // The command's clients of a running gateway (gateway keys rotate) call its account API through the SDK, as any client does.
  { from: "gateway/src", except: "gateway/src/cli/", mayNot: ["sdk"] },
  { from: "gateway/src", mayNot: ["console/src", "provider", "policy", "testkit", "test"] },
  { from: "provider/src", mayNot: ["gateway", "console", "policy", "testkit", "test"] },
  { from: "testkit/src", mayNot: ["test"] },
].map(({ from, except, mayNot }) => ({
  name: `${from}: no import of ${mayNot.join(", ")}`,
  comment: `${from} may not depend on ${mayNot.join(", ")} (.dependency-cruiser.cjs, PACKAGE_RULES)`,
  severity: "error",
  from: except ? { path: `^${escape(from)}/`, pathNot: `^${escape(except)}` } : { path: `^${escape(from)}/` },
  to: { path: `^(${mayNot.map(escape).join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle: break it by moving what both sides need to a module below them",
      severity: "error",
      from: { path: `^(${TREES.map(([root]) => escape(root)).join("|")})/` },
      to: { circular: true },
    },
    ...TREES.flatMap(([root, layers]) => [...layerRules(root, layers), placedRule(root, layers)]),
    ...PACKAGE_RULES,
  ],
  options: {
    // Type-only imports count: a cycle through types is a cycle of meaning.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    // Imports of other packages stay in the graph (as contract/dist/…, node_modules/…), so the package
    // rules see them; their insides are not cruised.
    doNotFollow: { path: "(^|/)(dist|node_modules)/" },
  },
};
