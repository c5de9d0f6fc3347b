/**
 * The OpenAPI document: docs/openapi.json is what the routes generate (run `npm run openapi` when
 * this fails), it is a valid OpenAPI 3.1 document, the running gateway serves the same at
 * GET /openapi.json, and every route of the app is in it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createApp, openApiDocumentText, openSqliteStore, startGateway } from "@gateway-keys/gateway";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

const CHECKED_IN = join(REPO_ROOT, "docs", "openapi.json");

type Operation = {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { format?: string }> } }> };
  responses: Record<string, { content?: Record<string, { schema: { format?: string } }> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

test("docs/openapi.json is what the routes generate (npm run openapi refreshes it)", async () => {
  expect(readFileSync(CHECKED_IN, "utf8")).toBe(await openApiDocumentText());
});

test("the document is valid OpenAPI 3.1", async () => {
  const document = JSON.parse(readFileSync(CHECKED_IN, "utf8")) as Document;
  expect(document.openapi).toBe("3.1.0");
  await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
});

test("a running gateway serves the same document at GET /openapi.json, without a credential", async () => {
  const gateway = await startGateway({ encryptionKey: Buffer.alloc(32, 1) });
  try {
    const response = await fetch(`${gateway.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(readFileSync(CHECKED_IN, "utf8")));
  } finally {
    await gateway.close();
  }
});

test("every route of the app is in the document, with its method", async () => {
  const store = openSqliteStore(":memory:");
  const app = createApp({ store, encryptionKey: Buffer.alloc(32, 1), maintenanceIntervalMs: 0 });
  const routes: string[] = [];
  app.addHook("onRoute", (route) => {
    // Fastify adds HEAD beside every GET by itself; OpenAPI leaves those implied.
    for (const method of [route.method].flat()) if (method !== "HEAD") routes.push(`${method} ${route.url.replace(/:(\w+)/g, "{$1}")}`);
  });
  try {
    await app.ready();
  } finally {
    await app.close();
    await store.close();
  }
  const document = JSON.parse(readFileSync(CHECKED_IN, "utf8")) as Document;
  const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
  expect(routes.length).toBeGreaterThan(15);
  expect(documented.sort()).toEqual([...new Set(routes)].sort());
});

test("the multipart upload, the binary audio and the event streams are described as such", () => {
  const { paths } = JSON.parse(readFileSync(CHECKED_IN, "utf8")) as Document;
  const transcription = paths["/v1/audio/transcriptions"]!.post!;
  const upload = transcription.requestBody!.content["multipart/form-data"]!.schema;
  expect(upload.properties!.file).toEqual({ type: "string", format: "binary" });
  expect(Object.keys(upload.properties!)).toEqual(expect.arrayContaining(["model", "language", "response_format"]));
  expect(Object.keys(transcription.responses["200"]!.content!)).toEqual(["application/json", "text/plain"]);

  const speech = paths["/v1/audio/speech"]!.post!.responses["200"]!.content!;
  expect(speech["audio/wav"]!.schema.format).toBe("binary");
  expect(speech["audio/pcm"]!.schema.format).toBe("binary");

  for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/messages"]) {
    expect(Object.keys(paths[path]!.post!.responses["200"]!.content!)).toEqual(["application/json", "text/event-stream"]);
  }
});

test("every account mutation documents the required Idempotency-Key header, and the gateway does refuse each one without it", async () => {
  const { paths } = JSON.parse(readFileSync(CHECKED_IN, "utf8")) as Document;
  const requiring: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const header = operation.parameters?.find((parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key");
      if (header) {
        expect(header.required).toBe(true);
        requiring.push(`${method.toUpperCase()} ${path}`);
      }
    }
  }
  const mutations = Object.entries(paths).flatMap(([path, operations]) =>
    path.startsWith("/v1/account/") ? Object.keys(operations).filter((method) => method !== "get").map((method) => `${method.toUpperCase()} ${path}`) : [],
  );
  expect(mutations.length).toBeGreaterThanOrEqual(4);
  expect(requiring.sort()).toEqual(mutations.sort());

  // What the document says is what the gateway does: each of them, sent without the header, is refused first.
  const gateway = await startGateway({ encryptionKey: Buffer.alloc(32, 1), bootstrap: { ownerId: "openapi" } });
  try {
    for (const operation of requiring) {
      const [method, path] = operation.split(" ") as [string, string];
      const response = await fetch(gateway.url + path.replace(/\{\w+\}/g, "key_unknown"), {
        method,
        headers: { authorization: `Bearer ${gateway.provisioningKey!}`, "content-type": "application/json" },
        body: "{}",
      });
      expect([operation, response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([operation, 400, "missing_idempotency_key"]);
    }
  } finally {
    await gateway.close();
  }
});
