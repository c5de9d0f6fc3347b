/**
 * The ApiKey provider's implementation. It runs inside Pulumi's dynamic-provider plugin process,
 * loaded by package name from the one-line `__provider` module (../provider-module.ts), so nothing
 * here is ever captured into a stack's state.
 */
import type * as pulumi from "@pulumi/pulumi";
import { checkInputs } from "./check";
import { Connections, defaultClientFactory, type ClientFactory, type ConfigNamespace, type Environment } from "./connection";
import type { ProviderContext } from "./context";
import {
  engineDiagnostics,
  inDynamicProviderPlugin,
  installPluginOutputFilter,
  reportOnce,
  silentDiagnostics,
  type Diagnostics,
} from "./diagnostics";
import { diffKey } from "./diff";
import { createKey, deleteKey, readKey, updateKey } from "./lifecycle";
import { KeyOperationError } from "./errors";
import { unexpected } from "./messages";
import { Owners } from "./owner";
import type { CheckedInputs, DesiredKey, StoredKey } from "./shapes";
import type { Clock } from "./time";

export { ConnectionInput, DEFAULT_TIMEOUT_SECONDS, TIMEOUT_SETTING, type ClientFactory, type ConfigNamespace, type Connection, type Environment } from "./connection";
export type { Diagnostics } from "./diagnostics";
export { derivedIdempotencyKey, gatewayReference } from "./idempotency";
export {
  ApiKeyInputs,
  RotationRecord,
  UNKNOWN,
  type CheckedInputs,
  type DesiredKey,
  type PendingInputs,
  type ReadInputs,
  type StoredKey,
} from "./shapes";
export { RotateAfter, RotationGracePeriod, type Clock } from "./time";

/** What a provider depends on; each has a default for the plugin process. */
export interface ApiKeyProviderOptions {
  /** Makes the SDK client for a gateway and provisioning key. Default: a `GatewayClient` with the configured time limit. */
  createClient?: ClientFactory;
  /** Where `GATEWAY_BASE_URL`, `GATEWAY_PROVISIONING_KEY` and `GATEWAY_REQUEST_TIMEOUT` are read, at each operation. Default `process.env`. */
  env?: Environment;
  /** Now, in milliseconds since the epoch: what `rotateAfter` is measured against. Default: system time (`Date.now`). */
  clock?: Clock;
  /** Where warnings go. Default: the engine, inside the plugin; nowhere elsewhere. */
  diagnostics?: Diagnostics;
  /** Which stack-config keys `configure` reads: `gateway:*` (default, the dynamic provider) or `gatewaykeys:*` (the native plugin). */
  configNamespace?: ConfigNamespace;
}

/** Runs one operation; whatever it throws leaves as one clean message (see reportOnce). */
async function reported<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw reportOnce(error instanceof KeyOperationError ? error : unexpected(error));
  }
}

/**
 * Makes an ApiKey provider: plain async functions, callable directly in tests. It holds its own
 * stack config, SDK clients (one per gateway and provisioning key), what it learned of owners, its
 * clock and where its warnings go.
 * @example
 * const provider = createApiKeyProvider({ env: { GATEWAY_BASE_URL: "http://127.0.0.1:8787", GATEWAY_PROVISIONING_KEY: key } });
 * const { inputs, failures } = await provider.check({}, { name: "ci" });
 */
export function createApiKeyProvider(options: ApiKeyProviderOptions = {}) {
  const env = options.env ?? process.env;
  const connections = new Connections({ env, createClient: options.createClient ?? defaultClientFactory, namespace: options.configNamespace });
  const context: ProviderContext = {
    connections,
    owners: new Owners(connections),
    now: options.clock ?? Date.now,
    diagnostics: options.diagnostics ?? silentDiagnostics,
  };
  const operations = {
    /** Remembers the stack config (`gateway:baseUrl`, `gateway:provisioningKey`, `gateway:requestTimeout`). */
    async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
      connections.configure(request.config);
    },
    /** Validates and normalises inputs and plans the secret; a bad program fails here, at preview. */
    check: (olds: Record<string, unknown>, news: Record<string, unknown>) => reported(() => checkInputs(context, olds ?? {}, news)),
    diff: (_id: string, olds: StoredKey, news: CheckedInputs) => reported(() => diffKey(context, olds, news)),
    create: (inputs: DesiredKey) => reported(() => createKey(context, inputs)),
    read: (id: string, props?: StoredKey) => reported(() => readKey(context, id, props)),
    update: (id: string, olds: StoredKey, news: DesiredKey) => reported(() => updateKey(context, id, olds, news)),
    delete: (id: string, props: StoredKey) => reported(() => deleteKey(context, id, props)),
  } satisfies pulumi.dynamic.ResourceProvider;
  return {
    ...operations,
    /** Closes every SDK client's connections (the plugin process simply exits; tests call this). */
    close: () => connections.close(),
  };
}

/** An ApiKey provider; see {@link createApiKeyProvider}. */
export type ApiKeyProvider = ReturnType<typeof createApiKeyProvider>;

/** The provider of the plugin process: warnings through the engine, each error printed once. */
function pluginProvider(): ApiKeyProvider {
  if (!inDynamicProviderPlugin()) return createApiKeyProvider();
  installPluginOutputFilter();
  const engineAddress = process.argv[2];
  return createApiKeyProvider({ diagnostics: engineAddress ? engineDiagnostics(engineAddress) : silentDiagnostics });
}

/**
 * The provider the plugin loads: `__provider` of every key in every stack names this export, so its
 * name never changes.
 */
export const apiKeyProvider: ApiKeyProvider = pluginProvider();
