import { z } from "zod";
import { GracePeriodSeconds, KeyVersion, PREVIOUS_SECRET_RETIRE_REASONS, SecretClient, Timestamp } from "./api-key";
import { AUDIT_ACTIONS, AuditEvent } from "./audit";
import { Labels } from "./policies";
import { RESET_PERIODS } from "./policies";
import { looseEnum, ReadUnits } from "./reading";
import { TeamSubject } from "./teams";

/** Bounds of webhook endpoints (docs/api/audit-and-webhooks.md#webhook-endpoints records them). */
export const WEBHOOK_LIMITS = {
  urlMaxLength: 2048,
  /** Deliveries stop after this many attempts and are marked `failed`. */
  maxAttempts: 12,
  /** Default overlap of a secret rotation: the old secret keeps signing for a day. */
  defaultRotationOverlapSeconds: 86_400,
} as const;

/**
 * Event types a webhook endpoint may subscribe to: the key alerts, and `audit.<action>` for every
 * audit action (its `data` is the {@link AuditEvent}).
 */
export const KEY_ALERT_EVENT_TYPES = [
  "key.budget_threshold",
  "key.expiring",
  "key.expired",
  "key.rotation_due",
  "key.previous_secret_in_use",
  "key.previous_secret_retired",
] as const;
/** Event types about a team: a window of its spend policy passed one of its thresholds. */
export const TEAM_ALERT_EVENT_TYPES = ["team.budget_threshold"] as const;
export const WEBHOOK_EVENT_TYPES = [
  ...KEY_ALERT_EVENT_TYPES,
  ...TEAM_ALERT_EVENT_TYPES,
  ...AUDIT_ACTIONS.map((action) => `audit.${action}` as const),
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES as unknown as [WebhookEventType, ...WebhookEventType[]], {
  error: `expected one of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
});

const WEBHOOK_ID_MESSAGE = "expected a webhook id such as wh_0r4B9TXiCfin7DT82uB3";
/** The id of a webhook endpoint: `wh_` and 20 base62 characters (1 to 60 accepted). */
export const WebhookId = z.string({ error: WEBHOOK_ID_MESSAGE }).regex(/^wh_[A-Za-z0-9]{1,60}$/, { error: WEBHOOK_ID_MESSAGE });

const URL_MESSAGE = `expected an http:// or https:// URL of at most ${WEBHOOK_LIMITS.urlMaxLength} characters, without user or password`;
/** Where events are POSTed. The gateway refuses private, loopback and link-local targets at delivery unless its operator allows them. */
export const WebhookUrl = z
  .string({ error: URL_MESSAGE })
  .max(WEBHOOK_LIMITS.urlMaxLength, { error: URL_MESSAGE })
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, { error: URL_MESSAGE });

/** The event types an endpoint receives: 1 or more, no repeats. */
export const WebhookEvents = z
  .array(WebhookEventType, { error: "expected an array of event types such as [\"key.budget_threshold\"]" })
  .min(1, { error: "must name at least one event type" })
  .refine((events) => new Set(events).size === events.length, { error: "must not repeat an event type" });

/**
 * The keys an endpoint hears about: a key matches when it has every label named here with the
 * same value. Empty (the default) matches every key, and events about no key (a sign-in).
 * A non-empty selector receives only events about a matching key.
 */
export const WebhookLabelSelector = Labels;

/** A webhook endpoint as the account API returns it; the signing secret is never returned again after create and rotate-secret. */
export const Webhook = z.object({
  object: z.literal("webhook"),
  webhookId: z.string(),
  ownerId: z.string(),
  url: z.string(),
  events: z.array(looseEnum(WEBHOOK_EVENT_TYPES as unknown as [string, ...string[]])),
  labelSelector: z.record(z.string(), z.string()).default({}),
  enabled: z.boolean(),
  /** Optimistic concurrency as on keys: starts at 1, each change adds 1; send it back as `expectedVersion`. */
  version: z.number().int().min(1),
  /** `whsec_` and the last four characters of the current secret. */
  secretHint: z.string(),
  /** Until when the secret replaced by the last rotation also signs deliveries, or null. */
  previousSecretExpiresAt: Timestamp.nullable().default(null),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

/**
 * The answer to create and rotate-secret: the endpoint plus its signing secret, shown this once, in
 * Standard Webhooks form: `whsec_` and the base64 of 32 random bytes.
 */
export const WebhookWithSecret = Webhook.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

/** Body of `POST /v1/account/webhooks`. */
export const CreateWebhookRequest = z.strictObject({
  url: WebhookUrl,
  events: WebhookEvents,
  labelSelector: WebhookLabelSelector.default({}),
  enabled: z.boolean({ error: "expected true or false" }).default(true),
});
export type CreateWebhookRequest = z.input<typeof CreateWebhookRequest>;
export type CreateWebhookParams = z.output<typeof CreateWebhookRequest>;

/** What a PATCH of a webhook may change. */
export const WebhookChanges = z.strictObject({
  url: WebhookUrl.optional(),
  events: WebhookEvents.optional(),
  labelSelector: WebhookLabelSelector.optional(),
  enabled: z.boolean({ error: "expected true or false" }).optional(),
});
export const WEBHOOK_CHANGE_FIELDS = Object.keys(WebhookChanges.shape) as (keyof typeof WebhookChanges.shape)[];

/** Body of `PATCH /v1/account/webhooks/{webhookId}`: `expectedVersion` plus at least one change. */
export const UpdateWebhookRequest = z
  .strictObject({ expectedVersion: KeyVersion, ...WebhookChanges.shape })
  .refine((body) => Object.keys(body).some((field) => field !== "expectedVersion"), {
    error: `expected at least one of ${WEBHOOK_CHANGE_FIELDS.join(", ")}`,
  });
export type UpdateWebhookRequest = z.input<typeof UpdateWebhookRequest>;
export type UpdateWebhookParams = z.output<typeof UpdateWebhookRequest>;

/**
 * Body of `POST /v1/account/webhooks/{webhookId}/rotate-secret`: the version last seen and how
 * many seconds the old secret keeps signing beside the new one (default a day; 0 stops it at once).
 * During the overlap each delivery carries two signatures, so a receiver may switch at any time.
 */
export const RotateWebhookSecretRequest = z.strictObject({
  expectedVersion: KeyVersion,
  overlapSeconds: GracePeriodSeconds.optional(),
});
export type RotateWebhookSecretRequest = z.infer<typeof RotateWebhookSecretRequest>;

/** Answer of `DELETE /v1/account/webhooks/{webhookId}`. Pending deliveries to it are dropped. */
export const DeletedWebhook = z.object({ object: z.literal("webhook"), webhookId: z.string(), deleted: z.literal(true) });
export type DeletedWebhook = z.infer<typeof DeletedWebhook>;

/** The path parameter of `/v1/account/webhooks/{webhookId}` and its sub-paths. */
export const WebhookPathParams = z.strictObject({ webhookId: WebhookId });

// ---- Event payloads ------------------------------------------------------------------------

/** The key an alert is about, as it was when the event was made. */
export const KeySubject = z.object({
  keyId: z.string(),
  ownerId: z.string(),
  name: z.string(),
  labels: z.record(z.string(), z.string()),
});

/** `data` of `key.budget_threshold`: the window's spend passed `threshold` × `limitUnits`. */
export const BudgetThresholdData = KeySubject.extend({
  threshold: z.number(),
  limitUnits: ReadUnits,
  /** The window's spend when the crossing was seen (at or past the threshold). */
  spentUnits: ReadUnits,
  windowStartedAt: Timestamp,
  /** When the window ends and the thresholds re-arm; null for a lifetime cap. */
  windowResetsAt: Timestamp.nullable(),
  /** Which window of the spend policy crossed (a policy may hold several); a gateway before several windows sends nothing. */
  resetPeriod: looseEnum(RESET_PERIODS).optional(),
});
/**
 * `data` of `team.budget_threshold`: what the team's keys spent together in one window of the
 * team's spend policy passed `threshold` × `limitUnits`; sent once per window per threshold, by
 * whichever gateway process saw the crossing first.
 */
export const TeamBudgetThresholdData = TeamSubject.extend({
  threshold: z.number(),
  limitUnits: ReadUnits,
  spentUnits: ReadUnits,
  resetPeriod: looseEnum(RESET_PERIODS),
  windowStartedAt: Timestamp,
  windowResetsAt: Timestamp.nullable(),
});
/** `data` of `key.expiring`: the key stops authenticating at `expiresAt`, within its `expiryWarningSeconds`. */
export const KeyExpiringData = KeySubject.extend({ expiresAt: Timestamp, expiryWarningSeconds: z.number().int() });
/** `data` of `key.expired`: `expiresAt` has passed. */
export const KeyExpiredData = KeySubject.extend({ expiresAt: Timestamp });
/** `data` of `key.rotation_due`: the secret made at `secretCreatedAt` reached `rotateAfterSeconds`. */
export const RotationDueData = KeySubject.extend({
  secretCreatedAt: Timestamp,
  rotateAfterSeconds: z.number().int(),
  dueAt: Timestamp,
});

/** `data` of `key.previous_secret_in_use`: the grace of a rotated key's previous secret is nearly over and clients still use it. */
export const PreviousSecretInUseData = KeySubject.extend({
  previousSecretHint: z.string(),
  /** When the previous secret stops authenticating at the latest. */
  expiresAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
  requestsSinceRotation: z.number().int(),
  /** The clients still presenting it, most recent first. */
  clients: z.array(SecretClient),
});
/** `data` of `key.previous_secret_retired`: a rotated key's previous secret stopped authenticating. */
export const PreviousSecretRetiredData = KeySubject.extend({
  previousSecretHint: z.string(),
  retiredAt: Timestamp,
  reason: looseEnum(PREVIOUS_SECRET_RETIRE_REASONS),
  lastUsedAt: Timestamp.nullable(),
  requestsSinceRotation: z.number().int(),
});

/**
 * The body POSTed to an endpoint (Standard Webhooks' payload form): `type`, `timestamp` and `data`,
 * plus `id` (also the `webhook-id` header, the same on every retry: receivers deduplicate on it).
 */
function eventOf<Type extends string, Data extends z.ZodType>(type: Type, data: Data) {
  return z.object({ id: z.string(), type: z.literal(type), timestamp: Timestamp, data });
}
export const BudgetThresholdEvent = eventOf("key.budget_threshold", BudgetThresholdData);
export const TeamBudgetThresholdEvent = eventOf("team.budget_threshold", TeamBudgetThresholdData);
export const KeyExpiringEvent = eventOf("key.expiring", KeyExpiringData);
export const KeyExpiredEvent = eventOf("key.expired", KeyExpiredData);
export const RotationDueEvent = eventOf("key.rotation_due", RotationDueData);
export const PreviousSecretInUseEvent = eventOf("key.previous_secret_in_use", PreviousSecretInUseData);
export const PreviousSecretRetiredEvent = eventOf("key.previous_secret_retired", PreviousSecretRetiredData);
/** `audit.<action>`: `data` is the audit event. */
export const AuditWebhookEvent = z.object({
  id: z.string(),
  type: z.enum(AUDIT_ACTIONS.map((action) => `audit.${action}` as const) as unknown as [`audit.${string}`, ...`audit.${string}`[]]),
  timestamp: Timestamp,
  data: AuditEvent,
});

/** Any event an endpoint receives, told apart by `type`. */
export const WebhookEvent = z.union([
  BudgetThresholdEvent,
  TeamBudgetThresholdEvent,
  KeyExpiringEvent,
  KeyExpiredEvent,
  RotationDueEvent,
  PreviousSecretInUseEvent,
  PreviousSecretRetiredEvent,
  AuditWebhookEvent,
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

// ---- Deliveries ---------------------------------------------------------------------------

export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

/** One event's delivery to one endpoint, as `GET /v1/account/webhooks/{webhookId}/deliveries` returns it. */
export const WebhookDelivery = z.object({
  object: z.literal("webhook_delivery"),
  deliveryId: z.string(),
  webhookId: z.string(),
  /** The event's id: the `webhook-id` header of every attempt. */
  eventId: z.string(),
  eventType: z.string(),
  status: looseEnum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  /** Why the last attempt failed (an HTTP status, a timeout, a refused address), or null. */
  lastError: z.string().nullable(),
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
  deliveredAt: Timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
