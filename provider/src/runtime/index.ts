/**
 * The ApiKey provider's implementation. It runs inside Pulumi's dynamic-provider plugin process,
 * loaded by package name from the one-line `__provider` module (../provider-module.ts), so nothing
 * here is ever captured into a stack's state.
 */
import type * as pulumi from "@pulumi/pulumi";
import { checkInputs } from "./check";
import { Connections, defaultClientFactory, type ClientFactory, type Environment } from "./connection";
import type { ProviderContext } from "./context";
import { diffKey } from "./diff";
import { createKey, deleteKey, readKey, updateKey } from "./lifecycle";
import { Owners } from "./owner";
import type { CheckedInputs, DesiredKey, StoredKey } from "./shapes";

export { ConnectionInput, type ClientFactory, type Connection, type Environment } from "./connection";
export { ApiKeyInputs, UNKNOWN, type CheckedInputs, type DesiredKey, type PendingInputs, type ReadInputs, type StoredKey } from "./shapes";

/** What a provider depends on; each has a default for the plugin process. */
export interface ApiKeyProviderOptions {
  /** Makes the SDK client for a gateway and provisioning key. Default: a `GatewayClient`, 30 s per attempt. */
  createClient?: ClientFactory;
  /** Where `GATEWAY_BASE_URL` and `GATEWAY_PROVISIONING_KEY` are read, at each operation. Default `process.env`. */
  env?: Environment;
}

/**
 * Makes an ApiKey provider: plain async functions, callable directly in tests. It holds its own
 * stack config, SDK clients (one per gateway and provisioning key) and what it learned of owners.
 * @example
 * const provider = createApiKeyProvider({ env: { GATEWAY_BASE_URL: "http://127.0.0.1:8787", GATEWAY_PROVISIONING_KEY: key } });
 * const { inputs, failures } = await provider.check({}, { name: "ci" });
 */
export function createApiKeyProvider(options: ApiKeyProviderOptions = {}) {
  const connections = new Connections({ env: options.env ?? process.env, createClient: options.createClient ?? defaultClientFactory });
  const context: ProviderContext = { connections, owners: new Owners(connections) };
  const operations = {
    /** Remembers the stack config (`gateway:baseUrl`, `gateway:provisioningKey`). */
    async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
      connections.configure(request.config);
    },
    /** Validates and normalises inputs; a bad program fails here, at preview, with no gateway call. */
    check: async (_olds: Record<string, unknown>, news: Record<string, unknown>) => checkInputs(connections, news),
    diff: (_id: string, olds: StoredKey, news: CheckedInputs) => diffKey(context, olds, news),
    create: (inputs: DesiredKey) => createKey(context, inputs),
    read: (id: string, props?: StoredKey) => readKey(context, id, props),
    update: (id: string, olds: StoredKey, news: DesiredKey) => updateKey(context, id, olds, news),
    delete: (id: string, props: StoredKey) => deleteKey(context, id, props),
  } satisfies pulumi.dynamic.ResourceProvider;
  return {
    ...operations,
    /** Closes every SDK client's connections (the plugin process simply exits; tests call this). */
    close: () => connections.close(),
  };
}

/** An ApiKey provider; see {@link createApiKeyProvider}. */
export type ApiKeyProvider = ReturnType<typeof createApiKeyProvider>;

/**
 * The provider the plugin loads: `__provider` of every key in every stack names this export, so its
 * name never changes.
 */
export const apiKeyProvider: ApiKeyProvider = createApiKeyProvider();
