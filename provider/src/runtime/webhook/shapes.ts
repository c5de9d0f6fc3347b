import { CreateWebhookRequest, Webhook, WEBHOOK_CHANGE_FIELDS, WebhookId } from "@gateway-keys/contract";
import { z } from "zod";
import { ConnectionInput } from "../connection";
import { RotationGracePeriod } from "../time";

/**
 * The properties of a webhook kept encrypted in a stack's state, by either front door: its signing
 * secret (shown once by the gateway), and its `connection` (which may hold a provisioning key).
 */
export const WEBHOOK_SECRET_PROPERTIES = ["signingSecret", "connection"] as const;

/** The fields a PATCH of a webhook changes: the contract's list. */
export const WEBHOOK_PATCHABLE_FIELDS = WEBHOOK_CHANGE_FIELDS;
export type WebhookPatchableField = (typeof WEBHOOK_PATCHABLE_FIELDS)[number];

/**
 * The inputs of a Webhook: the contract's create request (url, events, labelSelector, enabled, its
 * defaults and bounds) plus the provider's own fields. Top-level properties it does not name, such
 * as the engine's `__provider`, are dropped; inside, the contract's schemas stay strict.
 */
export const WebhookInputs = z.object({
  ...CreateWebhookRequest.shape,
  /** Any value; changing it rotates the signing secret in place (the old one keeps signing for `rotationOverlap`). */
  rotationTrigger: z.unknown().optional(),
  /** How long the replaced signing secret keeps signing beside the new one after a rotation (`"1h"`, up to `"7d"`). Default: the gateway's day. */
  rotationOverlap: RotationGracePeriod.optional(),
  connection: ConnectionInput.optional(),
  /** An existing webhook endpoint to take over instead of creating one (the dynamic resource's `import`). */
  adoptWebhookId: WebhookId.optional(),
  /** Hidden, set by the Webhook class (the native plugin gets it from the engine): the resource's URN, which names the create. */
  clientReference: z.string().optional(),
});

/** A webhook's inputs after `check`: what the program declares, defaults filled. */
export type DesiredWebhook = z.output<typeof WebhookInputs>;

/** The fields of the gateway's record the stack keeps: all but `object`. */
export const WEBHOOK_RECORD_FIELDS = (Object.keys(Webhook.shape) as (keyof Webhook)[]).filter(
  (field): field is Exclude<keyof Webhook, "object"> => field !== "object",
);

/** The inputs the stack carries beside the webhook's record: recorded as they are declared. */
export const WEBHOOK_CARRIED_INPUTS = ["rotationTrigger", "rotationOverlap", "clientReference", "connection", "adoptWebhookId"] as const;

/** A webhook's outputs, as stored in the stack's state (the signing secret encrypted by the engine). */
export type StoredWebhook = Omit<Webhook, "object" | "previousSecretExpiresAt"> &
  Pick<DesiredWebhook, (typeof WEBHOOK_CARRIED_INPUTS)[number]> & {
    /** Until when the replaced signing secret also signs deliveries; left out while there is none (the engine's state holds no null). */
    previousSecretExpiresAt?: string;
    /**
     * The signing secret (`whsec_...`) the stack received at create or its last rotation: what a
     * receiver verifies deliveries with. Absent for an imported or adopted endpoint until the stack rotates it.
     */
    signingSecret?: string;
    /** Whether {@link signingSecret} is the endpoint's current secret (false after an import, or a rotation outside the stack). */
    signingSecretKnown: boolean;
    /** The gateway the endpoint lives on. */
    baseUrl: string;
    /** Hint of the provisioning key the endpoint was last managed with. */
    provisioningKeyHint: string;
  };
