import type { AuditActor, AuditChange } from "@gateway-keys/contract";
import type { StoredSpendWindow } from "../../metering/interfaces";

// Rows of the event tables as both stores return them; integers may arrive as bigint (PostgreSQL
// BIGINT) or number, so every reader converts with Number().
type Int = bigint | number;
export const num = (value: Int): number => Number(value);
export const numOrNull = (value: Int | null): number | null => (value === null ? null : Number(value));

/** One audit event as stored, before its hash is checked or it is put on the wire. */
export interface StoredAuditEvent {
  ownerId: string;
  seq: number;
  id: string;
  time: number;
  actor: AuditActor;
  action: string;
  keyId: string | null;
  webhookId: string | null;
  /**
   * The team changed; absent for every other event, so the hash of an event made before teams
   * (which has no such field) is computed over the same fields it was made with.
   */
  teamId?: string;
  versionBefore: number | null;
  versionAfter: number | null;
  changes: Record<string, AuditChange>;
  idempotencyKey: string | null;
  requestId: string | null;
  prevHash: string;
  hash: string;
}

export interface AuditEventRow {
  owner_id: string;
  seq: Int;
  id: string;
  time: Int;
  actor: string;
  action: string;
  key_id: string | null;
  webhook_id: string | null;
  team_id?: string | null;
  version_before: Int | null;
  version_after: Int | null;
  changes: string;
  idempotency_key: string | null;
  request_id: string | null;
  prev_hash: string;
  hash: string;
}

export function auditEventFromRow(row: AuditEventRow): StoredAuditEvent {
  return {
    ownerId: row.owner_id,
    seq: num(row.seq),
    id: row.id,
    time: num(row.time),
    actor: JSON.parse(row.actor) as AuditActor,
    action: row.action,
    keyId: row.key_id,
    webhookId: row.webhook_id,
    ...(row.team_id !== null && row.team_id !== undefined && { teamId: row.team_id }),
    versionBefore: numOrNull(row.version_before),
    versionAfter: numOrNull(row.version_after),
    changes: JSON.parse(row.changes) as Record<string, AuditChange>,
    idempotencyKey: row.idempotency_key,
    requestId: row.request_id,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** A webhook endpoint as stored; its secrets stay sealed (AES-GCM) until a delivery signs with them. */
export interface StoredWebhook {
  seq: number;
  id: string;
  ownerId: string;
  url: string;
  events: string[];
  labelSelector: Record<string, string>;
  enabled: boolean;
  version: number;
  sealedSecret: Buffer;
  secretHint: string;
  sealedPreviousSecret: Buffer | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

export interface WebhookRow {
  seq: Int;
  id: string;
  owner_id: string;
  url: string;
  events: string;
  label_selector: string;
  enabled: Int;
  version: Int;
  sealed_secret: Uint8Array;
  secret_hint: string;
  sealed_previous_secret: Uint8Array | null;
  previous_secret_expires_at: Int | null;
  created_at: Int;
  updated_at: Int;
  deleted_at: Int | null;
}

export function webhookFromRow(row: WebhookRow): StoredWebhook {
  return {
    seq: num(row.seq),
    id: row.id,
    ownerId: row.owner_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    labelSelector: JSON.parse(row.label_selector) as Record<string, string>,
    enabled: num(row.enabled) === 1,
    version: num(row.version),
    sealedSecret: Buffer.from(row.sealed_secret),
    secretHint: row.secret_hint,
    sealedPreviousSecret: row.sealed_previous_secret === null ? null : Buffer.from(row.sealed_previous_secret),
    previousSecretExpiresAt: numOrNull(row.previous_secret_expires_at),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    deletedAt: numOrNull(row.deleted_at),
  };
}

/** One event's delivery to one endpoint. */
export interface StoredDelivery {
  seq: number;
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  deliveredAt: number | null;
}

export interface DeliveryRow {
  seq: Int;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: Int;
  last_error: string | null;
  next_attempt_at: Int | null;
  created_at: Int;
  delivered_at: Int | null;
}

export function deliveryFromRow(row: DeliveryRow): StoredDelivery {
  return {
    seq: num(row.seq),
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status as StoredDelivery["status"],
    attempts: num(row.attempts),
    lastError: row.last_error,
    nextAttemptAt: numOrNull(row.next_attempt_at),
    createdAt: num(row.created_at),
    deliveredAt: numOrNull(row.delivered_at),
  };
}

/** A delivery claimed by a deliverer: what it sends and where, with the endpoint's sealed secrets. */
export interface ClaimedDelivery extends StoredDelivery {
  ownerId: string;
  payload: string;
  url: string;
  sealedSecret: Buffer;
  sealedPreviousSecret: Buffer | null;
  previousSecretExpiresAt: number | null;
}

/** The fields of a key the alert scan reads. */
export interface AlertCandidate {
  id: string;
  ownerId: string;
  name: string;
  labels: Record<string, string>;
  expiresAt: number | null;
  createdAt: number;
  rotatedAt: number | null;
  spendLimitMicros: bigint | null;
  resetPeriod: string;
  alerts: { budgetAlertThresholds?: number[]; expiryWarningSeconds?: number | null; rotateAfterSeconds?: number | null };
  /** Every window, when the key's spend policy holds several; null otherwise. */
  spendWindows: StoredSpendWindow[] | null;
}
