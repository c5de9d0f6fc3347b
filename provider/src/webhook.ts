import * as pulumi from "@pulumi/pulumi";
import type { WebhookArgs } from "./inputs";
import { urnOf, WEBHOOK_PROVIDER_MODULE, WEBHOOK_TYPE } from "./provider-module";
import { WEBHOOK_SECRET_PROPERTIES } from "./runtime/webhook/shapes";
import { WebhookResource, webhookInputs } from "./webhook-base";

/**
 * A webhook endpoint of the gateway, managed as code: the gateway POSTs the events it names (key
 * alerts, audit actions) to `url`, signed as Standard Webhooks with the endpoint's secret. It is a
 * Pulumi dynamic resource: the engine runs its provider (./runtime/webhook) in the Node
 * dynamic-provider plugin.
 *
 * - Create makes the endpoint; its signing secret, shown once by the gateway, is the encrypted
 *   `signingSecret` output. A create is safe to repeat after a crash (an Idempotency-Key derived
 *   from the URN and the body replays the lost answer, secret included).
 * - Changing `url`, `events`, `labelSelector` or `enabled` is an in-place update (one PATCH, with
 *   the version in state: a change made outside the stack is a conflict, never overwritten).
 * - Changing `rotationTrigger` rotates the signing secret in place; the old one keeps signing beside
 *   the new one for `rotationOverlap`.
 * - Delete removes the endpoint (its pending deliveries are dropped). Another gateway replaces it.
 * - Adopt an existing endpoint with the `import` resource option: it must already be what the
 *   program declares. The gateway never shows its secret again, so `signingSecret` stays unknown
 *   (`signingSecretKnown: false`) until `rotationTrigger` rotates it.
 *
 * @example
 * const alerts = new Webhook("alerts", { url: "https://hooks.example.com/gateway", events: ["key.budget_threshold", "key.rotation_due"] });
 * export const signingSecret = alerts.signingSecret;
 */
export class Webhook extends WebhookResource {
  constructor(name: string, args: WebhookArgs, opts: pulumi.CustomResourceOptions = {}) {
    // The engine's own import cannot reach a dynamic provider (its read gets no `__provider`;
    // pulumi/pulumi#16175): the `import` option becomes an adoption the provider performs in `create`.
    const { import: importId, ...options } = opts;
    const inputs: Record<string, unknown> = {
      ...webhookInputs(args),
      adoptWebhookId: importId,
      // Names the create across runs (the derived Idempotency-Key), and addresses the provider's warnings.
      clientReference: urnOf(name, WEBHOOK_TYPE, options.parent),
      __provider: WEBHOOK_PROVIDER_MODULE,
    };
    const additionalSecretOutputs = [...(options.additionalSecretOutputs ?? []), ...WEBHOOK_SECRET_PROPERTIES];
    super(WEBHOOK_TYPE, name, inputs, { ...options, additionalSecretOutputs });
  }
}
