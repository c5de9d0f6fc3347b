import { canonicalJson, Webhook, type CreateWebhookRequest, type UpdateWebhookRequest } from "@gateway-keys/contract";
import { credentialHint, type Connection } from "../connection";
import {
  WEBHOOK_CARRIED_INPUTS,
  WEBHOOK_PATCHABLE_FIELDS,
  WEBHOOK_RECORD_FIELDS,
  type DesiredWebhook,
  type StoredWebhook,
  type WebhookPatchableField,
} from "./shapes";

/** What the stack knows of an endpoint's signing secret. */
export interface SigningSecretKnowledge {
  signingSecret: string | undefined;
  signingSecretKnown: boolean;
}

/** A patchable field as the contract reads a webhook record (an older state without `labelSelector` reads `{}`). */
function storedValue(stored: StoredWebhook, field: WebhookPatchableField): unknown {
  const read = Webhook.shape[field].safeParse(stored[field]);
  return read.success ? read.data : stored[field];
}

/** The patchable fields whose declared value differs from the stored one (events in the declared order: the gateway keeps it). */
export function changedWebhookFields(stored: StoredWebhook, desired: DesiredWebhook): WebhookPatchableField[] {
  return WEBHOOK_PATCHABLE_FIELDS.filter((field) => canonicalJson(storedValue(stored, field)) !== canonicalJson(desired[field]));
}

/** The create request of a declared endpoint. */
export function webhookCreateRequest(desired: DesiredWebhook): CreateWebhookRequest {
  return { url: desired.url, events: desired.events, labelSelector: desired.labelSelector, enabled: desired.enabled };
}

/** The PATCH that brings an endpoint at `version` to `desired` in `fields`. */
export function webhookChangeRequest(version: number, fields: readonly WebhookPatchableField[], desired: DesiredWebhook): UpdateWebhookRequest {
  const body: Record<string, unknown> = { expectedVersion: version };
  for (const field of fields) body[field] = desired[field];
  return body as UpdateWebhookRequest;
}

/** The outputs stored for an endpoint: the gateway's record, where it lives, the secret, and the inputs it carries. */
export function webhookState(
  record: Webhook,
  connection: Connection,
  secret: SigningSecretKnowledge,
  carried: Partial<Pick<DesiredWebhook, (typeof WEBHOOK_CARRIED_INPUTS)[number]>>,
): StoredWebhook {
  const kept: Record<string, unknown> = {
    signingSecretKnown: secret.signingSecretKnown,
    baseUrl: connection.baseUrl,
    provisioningKeyHint: credentialHint(connection),
  };
  for (const field of WEBHOOK_RECORD_FIELDS) if (record[field] !== null) kept[field] = record[field];
  if (secret.signingSecret !== undefined) kept.signingSecret = secret.signingSecret;
  for (const field of WEBHOOK_CARRIED_INPUTS) if (carried[field] !== undefined) kept[field] = carried[field];
  return kept as StoredWebhook;
}

/** The inputs a stored endpoint carries. */
export function carriedWebhookInputs(state: StoredWebhook): Partial<Pick<DesiredWebhook, (typeof WEBHOOK_CARRIED_INPUTS)[number]>> {
  const carried: Record<string, unknown> = {};
  for (const field of WEBHOOK_CARRIED_INPUTS) if (state[field] !== undefined) carried[field] = state[field];
  return carried;
}

/** The inputs a live endpoint implies (what refresh and import report), so a change made outside Pulumi shows in the next preview. */
export function webhookInputsOf(state: StoredWebhook): Record<string, unknown> {
  const inputs: Record<string, unknown> = { ...carriedWebhookInputs(state) };
  for (const field of WEBHOOK_PATCHABLE_FIELDS) inputs[field] = storedValue(state, field);
  return inputs;
}
