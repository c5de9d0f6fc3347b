import * as pulumi from "@pulumi/pulumi";
import type { GatewayConnectionArgs, WebhookArgs } from "./inputs";

/** The outputs both Webhook classes declare besides those that are also inputs. */
const OUTPUT_NAMES = [
  "webhookId", "ownerId", "version", "secretHint", "previousSecretExpiresAt", "createdAt", "updatedAt",
  "signingSecret", "signingSecretKnown", "baseUrl", "provisioningKeyHint",
] as const;

/** The inputs both classes send for `args`: the program's, the connection as a secret, and each output left undefined (as every Pulumi SDK does). */
export function webhookInputs(args: WebhookArgs): Record<string, unknown> {
  const inputs: Record<string, unknown> = {
    url: args.url,
    events: args.events,
    labelSelector: args.labelSelector,
    enabled: args.enabled,
    rotationTrigger: args.rotationTrigger,
    rotationOverlap: args.rotationOverlap,
    connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
  };
  for (const output of OUTPUT_NAMES) inputs[output] = undefined;
  return inputs;
}

/**
 * What every Webhook resource exposes, whichever front door manages it — the dynamic provider
 * ({@link import("./webhook").Webhook}) or the native plugin ({@link import("./native/resource").Webhook}).
 */
export abstract class WebhookResource extends pulumi.CustomResource {
  /** The endpoint's id on the gateway (`wh_...`); also the resource id. */
  declare readonly webhookId: pulumi.Output<string>;
  /** Where events are POSTed. */
  declare readonly url: pulumi.Output<string>;
  /** The event types it receives. */
  declare readonly events: pulumi.Output<string[]>;
  /** Labels a key must carry for its events to come here; empty: every key. */
  declare readonly labelSelector: pulumi.Output<Record<string, string>>;
  /** Whether deliveries are made. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** The owner the endpoint belongs to (fixed by the provisioning key). */
  declare readonly ownerId: pulumi.Output<string>;
  /** The endpoint's version; goes up on every change and rotation. */
  declare readonly version: pulumi.Output<number>;
  /**
   * The signing secret (`whsec_...`, a Pulumi secret) receivers verify deliveries with, as the
   * gateway showed it at create or at the stack's last rotation. Undefined for an imported or
   * adopted endpoint until `rotationTrigger` rotates it: the gateway never shows a secret again.
   */
  declare readonly signingSecret: pulumi.Output<string | undefined>;
  /** Whether `signingSecret` is the endpoint's current secret: false after an import, or a rotation outside this stack. */
  declare readonly signingSecretKnown: pulumi.Output<boolean>;
  /** `whsec_` and the last four characters of the current secret, safe to show. */
  declare readonly secretHint: pulumi.Output<string>;
  /** Until when the secret the last rotation replaced also signs deliveries (ISO 8601), if it still does or did. */
  declare readonly previousSecretExpiresAt: pulumi.Output<string | undefined>;
  /** The gateway the endpoint lives on. */
  declare readonly baseUrl: pulumi.Output<string>;
  /** Hint of the provisioning key the endpoint was last managed with. */
  declare readonly provisioningKeyHint: pulumi.Output<string>;
  /** The endpoint's own `connection` input, if any: a Pulumi secret. */
  declare readonly connection: pulumi.Output<GatewayConnectionArgs | undefined>;
  /** When the endpoint was created (ISO 8601). */
  declare readonly createdAt: pulumi.Output<string>;
  /** When the endpoint last changed (ISO 8601). */
  declare readonly updatedAt: pulumi.Output<string>;
}
