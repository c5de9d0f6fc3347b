/**
 * GET /healthz and /readyz over real HTTP: both unauthenticated; readiness follows the store and
 * turns 503 (code not_ready) the moment a shutdown begins, while liveness stays 200.
 */
import { openSqliteStore, startGateway } from "@gateway-keys/gateway";
import { call, expectError } from "./helpers";

test("/healthz and /readyz answer 200 {status: ok} without a credential", async () => {
  const gateway = await startGateway({ encryptionKey: Buffer.alloc(32, 1) });
  try {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await call(gateway.url, "GET", path);
      expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 200, body: { status: "ok" } });
    }
  } finally {
    await gateway.close();
  }
});

test("/readyz answers 503 not_ready once the store is closed, while /healthz stays 200", async () => {
  const store = openSqliteStore(":memory:");
  const gateway = await startGateway({ store, encryptionKey: Buffer.alloc(32, 1) });
  try {
    await store.close();
    const ready = await call(gateway.url, "GET", "/readyz");
    expectError(ready, 503, "not_ready");
    expect(ready.body.error.message).toMatch(/database/);
    expect((await call(gateway.url, "GET", "/healthz")).status).toBe(200);
  } finally {
    await gateway.close();
  }
});

test("/readyz answers 503 not_ready as soon as a shutdown begins, and the port refuses connections once it stops accepting", async () => {
  const gateway = await startGateway({ encryptionKey: Buffer.alloc(32, 1), shutdownDelayMs: 1500 });
  expect((await call(gateway.url, "GET", "/readyz")).status).toBe(200);
  const closing = gateway.close();
  try {
    // Within the shutdown delay: still accepting, no longer ready, still alive.
    const ready = await call(gateway.url, "GET", "/readyz");
    expectError(ready, 503, "not_ready");
    expect(ready.body.error.message).toMatch(/shutting down/);
    expect((await call(gateway.url, "GET", "/healthz")).status).toBe(200);
  } finally {
    await closing;
  }
  await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
});

test("/readyz takes no query parameters, like every route", async () => {
  const gateway = await startGateway({ encryptionKey: Buffer.alloc(32, 1) });
  try {
    expectError(await call(gateway.url, "GET", "/readyz?verbose=1"), 400, "validation_failed");
  } finally {
    await gateway.close();
  }
});
