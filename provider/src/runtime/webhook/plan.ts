import type * as pulumi from "@pulumi/pulumi";
import { sameJson } from "../compare";
import { credentialHint, sameGateway } from "../connection";
import type { ProviderContext } from "../context";
import { containsUnknown } from "../shapes";
import { checkedResourceInputs, type ResourceCheckOutcome } from "../validated";
import { WEBHOOK_PATCHABLE_FIELDS, WebhookInputs, type DesiredWebhook, type StoredWebhook } from "./shapes";
import { changedWebhookFields } from "./state";

/** Checks a program's inputs against the contract's own schemas (url, event types, selector) and resolves the connection. */
export async function checkWebhook(context: ProviderContext, news: Record<string, unknown>): Promise<ResourceCheckOutcome> {
  return checkedResourceInputs(context, WebhookInputs, news, WEBHOOK_PATCHABLE_FIELDS);
}

/** Whether an update rotates the signing secret: exactly when `rotationTrigger` changed (added or removed too). */
export function signingSecretRotates(stored: StoredWebhook, desired: DesiredWebhook): boolean {
  return !sameJson(stored.rotationTrigger, desired.rotationTrigger);
}

/**
 * Which properties change, and whether the endpoint must be replaced. URL, events, selector and
 * enabled are one in-place PATCH; a new `rotationTrigger` rotates the signing secret in place.
 * Only another gateway replaces the endpoint. An unchanged program costs no request.
 */
export async function diffWebhook(context: ProviderContext, stored: StoredWebhook, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult> {
  if (containsUnknown(news.connection)) return { changes: true, replaces: ["connection"] };
  if (containsUnknown(news)) return { changes: true, replaces: [] };
  const desired = news as DesiredWebhook;
  const target = context.connections.require(desired.connection);
  const replaces = sameGateway(target.baseUrl, stored.baseUrl) ? [] : ["connection"];
  const changes =
    replaces.length > 0 ||
    changedWebhookFields(stored, desired).length > 0 ||
    signingSecretRotates(stored, desired) ||
    !sameJson(stored.rotationOverlap, desired.rotationOverlap) ||
    !sameJson(stored.connection, desired.connection) ||
    !sameJson(stored.adoptWebhookId, desired.adoptWebhookId) ||
    credentialHint(target) !== stored.provisioningKeyHint;
  return { changes, replaces, deleteBeforeReplace: false };
}
