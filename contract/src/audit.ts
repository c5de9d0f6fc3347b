import { z } from "zod";
import { KeyId, TeamId, Timestamp } from "./api-key";
import { ListQuery } from "./list";
import { looseEnum } from "./reading";

/**
 * Who made an account change: a provisioning key (its id and hint, never its secret), a console
 * session (the provisioning key it signed in with), a person signed in to the console through
 * OpenID Connect (`person`: `id` is the provider's subject, `hint` the email it gave, never a
 * token), or the gateway itself (`system`, e.g. a scan).
 */
export const AUDIT_ACTOR_KINDS = ["provisioning_key", "console", "person", "system"] as const;

/**
 * What an audit event records. Key lifecycle: `create`, `update` (PATCH), `rotate`, `revoke`, and
 * the gateway's own `previous_secret_in_use` (the warning sent) and `previous_secret_retired`;
 * `console_sign_in`; the webhook endpoints' and the teams' own changes (a key joining or leaving a
 * team is an `update` of the key, `teamId` among its changes). Each is also the webhook event type
 * `audit.<action>` (see {@link WEBHOOK_EVENT_TYPES}).
 */
export const AUDIT_ACTIONS = [
  "create",
  "update",
  "rotate",
  "revoke",
  "previous_secret_in_use",
  "previous_secret_retired",
  "console_sign_in",
  "webhook_create",
  "webhook_update",
  "webhook_rotate_secret",
  "webhook_delete",
  "team_create",
  "team_update",
  "team_delete",
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS, { error: `expected one of ${AUDIT_ACTIONS.join(", ")}` });
export type AuditAction = z.infer<typeof AuditAction>;

/**
 * The actor of an audit event. `hint` is the prefix and last four characters of its key (a
 * `person`'s email, or null when the provider gave none); never a secret.
 */
export const AuditActor = z.object({
  kind: looseEnum(AUDIT_ACTOR_KINDS),
  id: z.string(),
  hint: z.string().nullable(),
});
export type AuditActor = z.infer<typeof AuditActor>;

/** One changed field: its value before and after (`old` is null on create; a secret is never a value). */
export const AuditChange = z.object({ old: z.unknown(), new: z.unknown() });
export type AuditChange = z.infer<typeof AuditChange>;

/**
 * One account change, as `GET /v1/account/audit-events` returns it. Events are append-only and
 * chained per owner: `seq` counts the owner's events from 1, `prevHash` is the previous event's
 * `hash` (64 zeros for the first), and `hash` is SHA-256 (hex) over `prevHash` and the canonical JSON
 * of every other field, so an edited, inserted or removed event breaks the chain (see
 * {@link AuditVerification}).
 */
export const AuditEvent = z.object({
  object: z.literal("audit_event"),
  /** `aud_` and 20 base62 characters. */
  id: z.string(),
  time: Timestamp,
  ownerId: z.string(),
  actor: AuditActor,
  action: looseEnum(AUDIT_ACTIONS),
  /** The key changed, or null (a sign-in, a webhook change). */
  keyId: z.string().nullable(),
  /** The webhook endpoint changed, or null. */
  webhookId: z.string().nullable(),
  /** The team changed, or null (a key moving between teams names its teams in `changes.teamId`). */
  teamId: z.string().nullable().default(null),
  /** The resource's version before the change (null on create) and after it (null when it is gone). */
  versionBefore: z.number().int().nullable(),
  versionAfter: z.number().int().nullable(),
  /** Field name to its old and new value, for every field the change changed. */
  changes: z.record(z.string(), AuditChange),
  /** The `Idempotency-Key` of the request that made the change, or null. */
  idempotencyKey: z.string().nullable(),
  /** The gateway's request id (`x-request-id`) of that request, or null. */
  requestId: z.string().nullable(),
  seq: z.number().int().min(1),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

const TIME_MESSAGE = "expected an ISO 8601 date and time with a zone, e.g. 2027-01-01T00:00:00Z";

/**
 * Query of `GET /v1/account/audit-events`: the list query plus filters. Newest first; `from` is
 * inclusive, `to` exclusive.
 */
export const AuditEventsQuery = z.strictObject({
  ...ListQuery.shape,
  keyId: KeyId.optional(),
  teamId: TeamId.optional(),
  action: AuditAction.optional(),
  from: z.string({ error: TIME_MESSAGE }).datetime({ offset: true, error: TIME_MESSAGE }).optional(),
  to: z.string({ error: TIME_MESSAGE }).datetime({ offset: true, error: TIME_MESSAGE }).optional(),
});
export type AuditEventsQuery = z.input<typeof AuditEventsQuery>;

/** What a broken chain shows first: a row whose hash does not match its content, a missing or extra row, or a head that does not match the last row. */
export const AUDIT_PROBLEMS = ["hash_mismatch", "prev_hash_mismatch", "sequence_gap", "head_mismatch"] as const;

/**
 * Answer of `GET /v1/account/audit-events/verify`: the owner's whole chain walked from its first
 * event. `valid` false names the first event (by `seq`) where the chain breaks.
 */
export const AuditVerification = z.object({
  object: z.literal("audit_verification"),
  ownerId: z.string(),
  valid: z.boolean(),
  eventsChecked: z.number().int(),
  /** The hash of the newest event (64 zeros with none): keep it elsewhere to detect a rewritten chain later. */
  headHash: z.string(),
  problem: looseEnum(AUDIT_PROBLEMS).nullable(),
  /** The first event where the chain breaks, or null. */
  brokenAtSeq: z.number().int().nullable(),
  brokenEventId: z.string().nullable(),
});
export type AuditVerification = z.infer<typeof AuditVerification>;

/** `prevHash` of an owner's first audit event. */
export const AUDIT_GENESIS_HASH = "0".repeat(64);
