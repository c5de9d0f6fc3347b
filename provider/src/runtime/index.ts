/**
 * The implementation of the ApiKey, Webhook and Team providers. It runs inside Pulumi's dynamic-provider plugin process,
 * loaded by package name from the one-line `__provider` module (../provider-module.ts), so nothing
 * here is ever captured into a stack's state.
 */
import type * as pulumi from "@pulumi/pulumi";
import { checkInputs } from "./check";
import { diffKey } from "./diff";
import { createKey, deleteKey, readKey, updateKey } from "./lifecycle";
import { pluginOptions, providerContext, reported, type ProviderOptions } from "./operations";
import type { CheckedInputs, DesiredKey, StoredKey } from "./shapes";
import { createTeamProvider, type TeamProvider } from "./team";
import { createWebhookProvider, type WebhookProvider } from "./webhook";

export { ConnectionInput, DEFAULT_TIMEOUT_SECONDS, TIMEOUT_SETTING, type ClientFactory, type ConfigNamespace, type Connection, type Environment } from "./connection";
export type { Diagnostics } from "./diagnostics";
export type { ProviderOptions } from "./operations";
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
export { ExpiryWarning, RotateAfter, RotationGracePeriod, type Clock } from "./time";
export { createTeamProvider, TeamInputs, type DesiredTeam, type StoredTeam, type TeamProvider } from "./team";
export { createWebhookProvider, WebhookInputs, type DesiredWebhook, type StoredWebhook, type WebhookProvider } from "./webhook";

/** What a provider depends on; each has a default for the plugin process. */
export type ApiKeyProviderOptions = ProviderOptions;

/**
 * Makes an ApiKey provider: plain async functions, callable directly in tests. It holds its own
 * stack config, SDK clients (one per gateway and provisioning key), what it learned of owners, its
 * clock and where its warnings go.
 * @example
 * const provider = createApiKeyProvider({ env: { GATEWAY_BASE_URL: "http://127.0.0.1:8787", GATEWAY_PROVISIONING_KEY: key } });
 * const { inputs, failures } = await provider.check({}, { name: "ci" });
 */
export function createApiKeyProvider(options: ApiKeyProviderOptions = {}) {
  const context = providerContext(options);
  const { connections } = context;
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

/**
 * The provider the plugin loads: `__provider` of every key in every stack names this export, so its
 * name never changes.
 */
export const apiKeyProvider: ApiKeyProvider = createApiKeyProvider(pluginOptions());

/** The Webhook provider the plugin loads: `__provider` of every Webhook names this export, so its name never changes. */
export const webhookProvider: WebhookProvider = createWebhookProvider(pluginOptions());

/** The Team provider the plugin loads: `__provider` of every Team names this export, so its name never changes. */
export const teamProvider: TeamProvider = createTeamProvider(pluginOptions());
