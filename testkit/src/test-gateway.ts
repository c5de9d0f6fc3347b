/**
 * The shared test fixture: a real gateway over real HTTP on 127.0.0.1 (ephemeral port) with a real
 * SQLite database in a temporary directory, plus a provisioning key for one owner.
 *
 *   const gateway = await startTestGateway();
 *   // … requests to gateway.baseUrl with gateway.provisioningKey …
 *   await gateway.stop();
 *
 * Only erasable TypeScript and package imports, so it also runs under Node's type stripping
 * (bench/, scripts/). Keep the exported signatures stable: gateway, sdk, provider and e2e tests
 * use them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { createProvisioningKey, startGateway } from "@gateway-keys/gateway";
import type { RunningGateway, StartGatewayOptions, Store } from "@gateway-keys/gateway";
import type { ApiKeyWithSecret, CreateApiKeyRequest, Scope } from "@gateway-keys/contract";

/** A clock tests move by hand; pass `clock.now` as the gateway's clock. */
export interface TestClock {
  now: () => Date;
  /** Moves time forward (or back, with a negative amount). */
  advance(ms: number): void;
  set(at: Date | number): void;
}

/** A clock that stands still at `start` (default 2030-01-01T00:00:00Z) until moved. */
export function createTestClock(start: Date | number = Date.UTC(2030, 0, 1)): TestClock {
  let at = typeof start === "number" ? start : start.getTime();
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
    },
    set: (to) => {
      at = typeof to === "number" ? to : to.getTime();
    },
  };
}

/** Options of {@link startTestGateway}; anything else is passed to `startGateway`. */
export interface TestGatewayOptions extends Omit<StartGatewayOptions, "bootstrap" | "port" | "host" | "store"> {
  /** Owner of the bootstrap provisioning key. Default `test-owner`. */
  ownerId?: string;
  /** Scopes of the bootstrap key. Default all. */
  scopes?: Scope[];
  /** `"file"` (default): a SQLite file in a fresh temp directory; `"memory"`: `:memory:`. Ignored if `dbPath` is set. */
  storage?: "file" | "memory";
}

/** A running test gateway. */
export interface TestGateway {
  /** e.g. `http://127.0.0.1:41234`, no trailing slash. */
  baseUrl: string;
  /** Provisioning key of {@link ownerId}, with the scopes asked for. */
  provisioningKey: string;
  ownerId: string;
  /** The SQLite file, or `undefined` in memory. */
  dbPath: string | undefined;
  /** The gateway's store, for tests that look underneath the HTTP API. */
  store: Store;
  /** The running gateway (its Fastify `app` too). */
  gateway: RunningGateway;
  /** A new provisioning key, for this owner or another one. Default scopes: all. */
  newProvisioningKey(ownerId: string, scopes?: Scope[]): Promise<string>;
  /**
   * Creates a regular key over HTTP (`POST /v1/account/api-keys`) and returns the record with its
   * secret. Default body `{ name: "test key" }`; default credential: {@link provisioningKey}.
   */
  createRegularKey(body?: Partial<CreateApiKeyRequest>, options?: { provisioningKey?: string }): Promise<ApiKeyWithSecret>;
  /** Stops the server, closes the database and deletes its temp directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts a gateway for one test file (or one test). */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { ownerId = "test-owner", scopes, storage = "file", dbPath: givenPath, ...gatewayOptions } = options;
  const tempDir = givenPath === undefined && storage === "file" ? mkdtempSync(join(tmpdir(), "gateway-test-")) : undefined;
  const dbPath = givenPath ?? (tempDir ? join(tempDir, "gateway.db") : ":memory:");
  const gateway = await startGateway({
    ...gatewayOptions,
    dbPath,
    port: 0,
    host: "127.0.0.1",
    bootstrap: { ownerId, ...(scopes ? { scopes } : {}) },
  });
  let stopped = false;
  const baseUrl = gateway.url;
  const provisioningKey = gateway.provisioningKey!;

  return {
    baseUrl,
    provisioningKey,
    ownerId,
    dbPath: dbPath === ":memory:" ? undefined : dbPath,
    store: gateway.store,
    gateway,
    async newProvisioningKey(owner, keyScopes) {
      // Awaited whether or not the store answers synchronously, so an asynchronous Store needs no change here.
      const created = await createProvisioningKey(gateway.store, {
        ownerId: owner,
        ...(keyScopes ? { scopes: keyScopes } : {}),
        ...(gatewayOptions.clock ? { clock: gatewayOptions.clock } : {}),
      });
      return created.secret;
    },
    async createRegularKey(body = {}, requestOptions = {}) {
      const response = await fetch(`${baseUrl}/v1/account/api-keys`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${requestOptions.provisioningKey ?? provisioningKey}`,
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify({ name: "test key", ...body }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`creating a key failed: ${response.status} ${text}`);
      return JSON.parse(text) as ApiKeyWithSecret;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await gateway.close();
      } finally {
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      }
    },
  };
}
