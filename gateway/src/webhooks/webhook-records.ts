import { randomBytes } from "node:crypto";
import type { CreateWebhookParams, UpdateWebhookParams, Webhook, WebhookDelivery } from "@gateway-keys/contract";
import { newId, type ReplyCipher } from "../crypto";
import { versionConflict } from "../errors";
import type { WebhookUpdate } from "../store/events/event-tables";
import type { StoredDelivery, StoredWebhook } from "../store/events/event-rows";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** A fresh signing secret in Standard Webhooks form: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** `whsec_…` and the secret's last four characters: enough to tell two secrets apart, never to sign. */
export function webhookSecretHint(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

/** The additional data a secret is sealed with: a sealed secret copied to another endpoint's row fails to open. */
export function secretScope(webhookId: string): string {
  return `webhook-secret\n${webhookId}`;
}

/** A new endpoint and its secret (sealed for the database; the plaintext goes back to the caller once). */
export function newWebhook(ownerId: string, params: CreateWebhookParams, cipher: ReplyCipher, now: number): { webhook: Omit<StoredWebhook, "seq">; secret: string } {
  const id = newId("wh");
  const secret = newWebhookSecret();
  return {
    secret,
    webhook: {
      id,
      ownerId,
      url: params.url,
      events: [...params.events],
      labelSelector: { ...params.labelSelector },
      enabled: params.enabled,
      version: 1,
      sealedSecret: cipher.seal(secret, secretScope(id)),
      secretHint: webhookSecretHint(secret),
      sealedPreviousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    },
  };
}

/** Refuses a stale `expectedVersion` with 409 `conflict`, as keys do. */
export function assertWebhookVersion(current: StoredWebhook, expectedVersion: number): void {
  if (current.version !== expectedVersion) throw versionConflict("webhook", expectedVersion, current.version);
}

function unchanged(current: StoredWebhook, now: number): WebhookUpdate {
  const { seq: _seq, id: _id, ownerId: _owner, createdAt: _created, ...columns } = current;
  return { ...columns, version: current.version + 1, updatedAt: now };
}

/** PATCH: the fields present replace the stored ones; the version goes up by one. */
export function applyWebhookUpdate(current: StoredWebhook, params: UpdateWebhookParams, now: number): WebhookUpdate {
  assertWebhookVersion(current, params.expectedVersion);
  const next = unchanged(current, now);
  if (params.url !== undefined) next.url = params.url;
  if (params.events !== undefined) next.events = [...params.events];
  if (params.labelSelector !== undefined) next.labelSelector = { ...params.labelSelector };
  if (params.enabled !== undefined) next.enabled = params.enabled;
  return next;
}

/**
 * Rotate-secret: a new secret signs from now on; the one it replaces keeps signing beside it for
 * `overlapMs` (each delivery then carries both signatures), so receivers switch when they like.
 */
export function applySecretRotation(current: StoredWebhook, expectedVersion: number, sealedSecret: Buffer, secretHint: string, now: number, overlapMs: number): WebhookUpdate {
  assertWebhookVersion(current, expectedVersion);
  const next = { ...unchanged(current, now), sealedSecret, secretHint };
  if (overlapMs <= 0) return { ...next, sealedPreviousSecret: null, previousSecretExpiresAt: null };
  return { ...next, sealedPreviousSecret: current.sealedSecret, previousSecretExpiresAt: now + overlapMs };
}

/** Delete: the row stays (its deliveries refer to it), marked deleted, its secrets dropped. */
export function applyWebhookDelete(current: StoredWebhook, now: number): WebhookUpdate {
  return { ...unchanged(current, now), enabled: false, sealedPreviousSecret: null, previousSecretExpiresAt: null, deletedAt: now };
}

/** The wire record: never a secret, sealed or not. */
export function toWireWebhook(webhook: StoredWebhook): Webhook {
  return {
    object: "webhook",
    webhookId: webhook.id,
    ownerId: webhook.ownerId,
    url: webhook.url,
    events: [...webhook.events],
    labelSelector: { ...webhook.labelSelector },
    enabled: webhook.enabled,
    version: webhook.version,
    secretHint: webhook.secretHint,
    previousSecretExpiresAt: isoOrNull(webhook.previousSecretExpiresAt),
    createdAt: iso(webhook.createdAt),
    updatedAt: iso(webhook.updatedAt),
  };
}

/** The fields of an endpoint its audit events compare (the secret shows only as its hint). */
export function auditedWebhookFields(webhook: StoredWebhook): Record<string, unknown> {
  return {
    url: webhook.url,
    events: webhook.events,
    labelSelector: webhook.labelSelector,
    enabled: webhook.enabled,
    secretHint: webhook.secretHint,
    deletedAt: isoOrNull(webhook.deletedAt),
  };
}

export function toWireDelivery(delivery: StoredDelivery): WebhookDelivery {
  return {
    object: "webhook_delivery",
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastError: delivery.lastError,
    nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
    createdAt: iso(delivery.createdAt),
    deliveredAt: isoOrNull(delivery.deliveredAt),
  };
}
