/**
 * The Webhook provider's implementation: a webhook endpoint of the gateway's account API (where
 * events are POSTed, signed with the endpoint's secret). Loaded by the dynamic-provider plugin from
 * the one-line `__provider` module of the Webhook class, and by the native plugin's handler.
 */
import type * as pulumi from "@pulumi/pulumi";
import { providerContext, reported, type ProviderOptions } from "../operations";
import { createWebhook, deleteWebhook, readWebhook, updateWebhook } from "./lifecycle";
import { checkWebhook, diffWebhook } from "./plan";
import type { DesiredWebhook, StoredWebhook } from "./shapes";

export { signingSecretRotates } from "./plan";
export {
  WEBHOOK_CARRIED_INPUTS,
  WEBHOOK_PATCHABLE_FIELDS,
  WEBHOOK_RECORD_FIELDS,
  WEBHOOK_SECRET_PROPERTIES,
  WebhookInputs,
  type DesiredWebhook,
  type StoredWebhook,
} from "./shapes";

/**
 * Makes a Webhook provider: plain async functions, callable directly in tests, over its own
 * connections (stack config `gateway:*` or `gatewaykeys:*`, then the environment).
 */
export function createWebhookProvider(options: ProviderOptions = {}) {
  const context = providerContext(options);
  const operations = {
    /** Remembers the stack config (`gateway:baseUrl`, `gateway:provisioningKey`, `gateway:requestTimeout`). */
    async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
      context.connections.configure(request.config);
    },
    /** Validates the inputs with the contract's schemas; a bad program fails here, at preview. */
    check: (_olds: Record<string, unknown>, news: Record<string, unknown>) => reported(() => checkWebhook(context, news)),
    diff: (_id: string, olds: StoredWebhook, news: Record<string, unknown>) => reported(() => diffWebhook(context, olds, news)),
    create: (inputs: DesiredWebhook) => reported(() => createWebhook(context, inputs)),
    read: (id: string, props?: StoredWebhook) => reported(() => readWebhook(context, id, props)),
    update: (id: string, olds: StoredWebhook, news: DesiredWebhook) => reported(() => updateWebhook(context, id, olds, news)),
    delete: (id: string, props: StoredWebhook) => reported(() => deleteWebhook(context, id, props)),
  } satisfies pulumi.dynamic.ResourceProvider;
  return {
    ...operations,
    /** Closes every SDK client's connections (the plugin process simply exits; tests call this). */
    close: () => context.connections.close(),
  };
}

/** A Webhook provider; see {@link createWebhookProvider}. */
export type WebhookProvider = ReturnType<typeof createWebhookProvider>;
