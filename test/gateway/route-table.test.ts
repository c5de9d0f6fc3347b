/**
 * The contract's route table is the one declaration of the API's routes: the gateway serves
 * exactly its routes (beside the operational ones), and the SDK's paths come from it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROUTES, routePath } from "@gateway-keys/contract";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";
import { createApp, openSqliteStore } from "@gateway-keys/gateway";

const OPERATIONAL = ["GET /healthz", "GET /readyz", "GET /openapi.json"];

test("the gateway registers every route of the table, and no other but the operational ones", async () => {
  const store = openSqliteStore(":memory:");
  const app = createApp({ store, maintenanceIntervalMs: 0 });
  const registered: string[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) if (method !== "HEAD") registered.push(`${method} ${route.url}`);
  });
  await app.ready();
  try {
    const table = Object.values(ROUTES).map((route) => `${route.method} ${route.path}`);
    expect(registered.sort()).toEqual([...table, ...OPERATIONAL].sort());
  } finally {
    await app.close();
    store.close();
  }
});

test("a path's parameters are filled in percent-encoded, and a missing one is an error", () => {
  expect(routePath(ROUTES.rotateKey, { keyId: "key_abc" })).toBe("/v1/account/api-keys/key_abc/rotate");
  expect(routePath(ROUTES.model, { model: "meta/llama 3" })).toBe("/v1/models/meta%2Fllama%203");
  expect(() => routePath(ROUTES.getKey)).toThrow("routePath: /v1/account/api-keys/:keyId needs the parameter keyId");
});

test("the OpenAPI document names each operation as the table does, so generated clients call it createKey, listKeys, …", () => {
  // docs/openapi.json is what the routes generate (test/gateway/openapi.test.ts keeps it so).
  const document = JSON.parse(readFileSync(join(REPO_ROOT, "docs", "openapi.json"), "utf8")) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  for (const [name, route] of Object.entries(ROUTES)) {
    const path = route.path.replace(/:([A-Za-z]+)/g, "{$1}");
    expect({ name, operationId: document.paths[path]?.[route.method.toLowerCase()]?.operationId }).toEqual({ name, operationId: name });
  }
});
