import type * as pulumi from "@pulumi/pulumi";
import { sameJson } from "../compare";
import { credentialHint, sameGateway } from "../connection";
import type { ProviderContext } from "../context";
import { containsUnknown } from "../shapes";
import { validatedInputs } from "../validated";
import { WEBHOOK_PATCHABLE_FIELDS, WebhookInputs, type DesiredWebhook, type StoredWebhook } from "./shapes";
import { changedWebhookFields } from "./state";

/** The inputs `check` hands on, or the failures that stop the preview. */
export interface WebhookCheckOutcome {
  inputs: Record<string, unknown>;
  failures: pulumi.dynamic.CheckFailure[];
}

/**
 * Validates a program's inputs with the contract's own schemas (url, event types, selector), fills
 * the defaults and resolves the endpoint's connection, so a bad program fails at preview naming
 * each property path and what is allowed, with no gateway call.
 */
export async function checkWebhook(context: ProviderContext, news: Record<string, unknown>): Promise<WebhookCheckOutcome> {
  const validated = validatedInputs(WebhookInputs, news, WEBHOOK_PATCHABLE_FIELDS);
  if (validated.kind === "pending") return { inputs: news, failures: [] };
  if (validated.kind === "failed") return { inputs: news, failures: validated.failures };
  const inputs = { ...validated.desired, ...validated.pending };
  if (validated.pending.connection !== undefined) return { inputs, failures: [] };
  const resolution = context.connections.resolve(validated.desired.connection);
  // No property: the reason says which stack config or environment variable to set.
  if (!resolution.ok) return { inputs, failures: [{ property: "", reason: resolution.problem }] };
  return { inputs, failures: [] };
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
