import { createApp } from "./app";
import { openSqliteStore } from "./store/sqlite/sqlite-store";

/**
 * The gateway's OpenAPI document, as `GET /openapi.json` serves it, from an app that never
 * listens (in memory, fixed key: nothing in the document depends on either). `npm run openapi`
 * writes it to docs/openapi.json.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const store = openSqliteStore(":memory:");
  const app = createApp({ store, encryptionKey: Buffer.alloc(32), maintenanceIntervalMs: 0 });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await store.close();
  }
}

/** The document as docs/openapi.json holds it: two-space JSON and a final newline. */
export async function openApiDocumentText(): Promise<string> {
  return `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
}
