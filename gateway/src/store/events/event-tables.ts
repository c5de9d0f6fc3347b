import { AUDIT_GENESIS_HASH } from "@gateway-keys/contract";
import type { SqlRunner } from "./sql-runner";
import { spendWindowsColumn } from "../team-rows";
import {
  auditEventFromRow,
  deliveryFromRow,
  num,
  numOrNull,
  webhookFromRow,
  type AlertCandidate,
  type AuditEventRow,
  type ClaimedDelivery,
  type DeliveryRow,
  type StoredAuditEvent,
  type StoredDelivery,
  type StoredWebhook,
  type WebhookRow,
} from "./event-rows";

/** Filters of an audit-event page, newest first below `beforeSeq`. */
export interface AuditEventFilter {
  ownerId: string;
  keyId?: string;
  teamId?: string;
  action?: string;
  /** Inclusive, ms. */
  from?: number;
  /** Exclusive, ms. */
  to?: number;
  beforeSeq: number;
  limit: number;
}

/** A webhook's columns that a change, rotation or deletion writes. */
export type WebhookUpdate = Pick<
  StoredWebhook,
  "url" | "events" | "labelSelector" | "enabled" | "version" | "sealedSecret" | "secretHint" | "sealedPreviousSecret" | "previousSecretExpiresAt" | "updatedAt" | "deletedAt"
>;

/** How an attempt left a delivery. */
export interface DeliveryOutcome {
  status: StoredDelivery["status"];
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

const DELIVERY_COLUMNS = `d.seq, d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempts, d.last_error,
  d.next_attempt_at, d.created_at, d.delivered_at`;

const placeholders = (count: number): string => Array.from({ length: count }, () => "?").join(", ");

/**
 * The event tables of a store: the audit trail, webhook endpoints, the outbox (events and their
 * deliveries) and the alert marks. One instance runs on a unit of work's connection, so its writes
 * commit with the key change that caused them. Persists and reads only: the chain's hashes, the
 * retry schedule and who is subscribed are decided in gateway/src/audit and gateway/src/webhooks.
 */
export class EventTables {
  readonly #run: SqlRunner;

  constructor(runner: SqlRunner) {
    this.#run = runner;
  }

  /** Row locks exist only on PostgreSQL; SQLite's write transaction already holds the whole database. */
  #lock(skipLocked = false): string {
    if (this.#run.dialect === "sqlite") return "";
    return skipLocked ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE";
  }

  // ---- audit trail ----

  /** The owner's chain head (seq 0 and the genesis hash before the first event), held until the unit of work ends. */
  async lockAuditHead(ownerId: string): Promise<{ seq: number; hash: string }> {
    // One round trip: creates the head at genesis, or "updates" it to itself, which row-locks it and returns it.
    const [row] = await this.#run.all<{ seq: number; hash: string }>(
      "INSERT INTO audit_heads (owner_id, seq, hash) VALUES (?, 0, ?) ON CONFLICT (owner_id) DO UPDATE SET seq = audit_heads.seq RETURNING seq, hash",
      [ownerId, AUDIT_GENESIS_HASH],
    );
    return { seq: num(row!.seq), hash: row!.hash };
  }

  /** The owner's chain head as committed, or undefined before the first event. */
  async auditHead(ownerId: string): Promise<{ seq: number; hash: string } | undefined> {
    const [row] = await this.#run.all<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_heads WHERE owner_id = ?", [ownerId]);
    return row && { seq: num(row.seq), hash: row.hash };
  }

  /** Appends an event and moves the owner's head to it (the caller holds the head: {@link lockAuditHead}). */
  async appendAuditEvent(event: StoredAuditEvent): Promise<void> {
    const insert = `INSERT INTO audit_events (owner_id, seq, id, time, actor, action, key_id, webhook_id, team_id, version_before, version_after,
        changes, idempotency_key, request_id, prev_hash, hash) VALUES (${placeholders(16)})`;
    const values = [
      event.ownerId, event.seq, event.id, event.time, JSON.stringify(event.actor), event.action, event.keyId, event.webhookId, event.teamId ?? null,
      event.versionBefore, event.versionAfter, JSON.stringify(event.changes), event.idempotencyKey, event.requestId, event.prevHash, event.hash,
    ];
    const moveHead = "UPDATE audit_heads SET seq = ?, hash = ? WHERE owner_id = ?";
    const head = [event.seq, event.hash, event.ownerId];
    // PostgreSQL takes both in one statement (one round trip); SQLite runs them in turn, in process.
    if (this.#run.dialect === "postgres") await this.#run.all(`WITH appended AS (${insert}) ${moveHead}`, [...values, ...head]);
    else {
      await this.#run.all(insert, values);
      await this.#run.all(moveHead, head);
    }
  }

  /** A page of the owner's events, newest first. */
  async listAuditEvents(filter: AuditEventFilter): Promise<StoredAuditEvent[]> {
    const where = ["owner_id = ?", "seq < ?"];
    const params: unknown[] = [filter.ownerId, filter.beforeSeq];
    if (filter.keyId !== undefined) (where.push("key_id = ?"), params.push(filter.keyId));
    if (filter.teamId !== undefined) (where.push("team_id = ?"), params.push(filter.teamId));
    if (filter.action !== undefined) (where.push("action = ?"), params.push(filter.action));
    if (filter.from !== undefined) (where.push("time >= ?"), params.push(filter.from));
    if (filter.to !== undefined) (where.push("time < ?"), params.push(filter.to));
    const rows = await this.#run.all<AuditEventRow>(
      `SELECT * FROM audit_events WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`,
      [...params, filter.limit],
    );
    return rows.map(auditEventFromRow);
  }

  /** Up to `limit` of the owner's events after `afterSeq`, oldest first: what verify walks. */
  async auditChain(ownerId: string, afterSeq: number, limit: number): Promise<StoredAuditEvent[]> {
    const rows = await this.#run.all<AuditEventRow>("SELECT * FROM audit_events WHERE owner_id = ? AND seq > ? ORDER BY seq LIMIT ?", [ownerId, afterSeq, limit]);
    return rows.map(auditEventFromRow);
  }

  /** Owners that have an audit chain (the CLI's verify walks each). */
  async auditOwners(): Promise<string[]> {
    const rows = await this.#run.all<{ owner_id: string }>("SELECT owner_id FROM audit_heads ORDER BY owner_id", []);
    return rows.map((row) => row.owner_id);
  }

  // ---- webhook endpoints ----

  async insertWebhook(webhook: Omit<StoredWebhook, "seq">): Promise<StoredWebhook> {
    const [row] = await this.#run.all<WebhookRow>(
      `INSERT INTO webhooks (id, owner_id, url, events, label_selector, enabled, version, sealed_secret, secret_hint,
        sealed_previous_secret, previous_secret_expires_at, created_at, updated_at, deleted_at)
      VALUES (${placeholders(14)}) RETURNING *`,
      [
        webhook.id, webhook.ownerId, webhook.url, JSON.stringify(webhook.events), JSON.stringify(webhook.labelSelector),
        webhook.enabled ? 1 : 0, webhook.version, webhook.sealedSecret, webhook.secretHint, webhook.sealedPreviousSecret,
        webhook.previousSecretExpiresAt, webhook.createdAt, webhook.updatedAt, webhook.deletedAt,
      ],
    );
    return webhookFromRow(row!);
  }

  /** One of the owner's endpoints that is not deleted; `lock` holds it against concurrent change. */
  async getWebhook(ownerId: string, id: string, lock = false): Promise<StoredWebhook | undefined> {
    const [row] = await this.#run.all<WebhookRow>(
      `SELECT * FROM webhooks WHERE id = ? AND owner_id = ? AND deleted_at IS NULL${lock ? this.#lock() : ""}`,
      [id, ownerId],
    );
    return row && webhookFromRow(row);
  }

  async listWebhooks(ownerId: string, afterSeq: number, limit: number): Promise<StoredWebhook[]> {
    const rows = await this.#run.all<WebhookRow>(
      "SELECT * FROM webhooks WHERE owner_id = ? AND seq > ? AND deleted_at IS NULL ORDER BY seq LIMIT ?",
      [ownerId, afterSeq, limit],
    );
    return rows.map(webhookFromRow);
  }

  /** Writes a change of an endpoint read at `readVersion`; throws when it changed since. */
  async updateWebhook(id: string, readVersion: number, next: WebhookUpdate): Promise<StoredWebhook> {
    const [row] = await this.#run.all<WebhookRow>(
      `UPDATE webhooks SET url = ?, events = ?, label_selector = ?, enabled = ?, version = ?, sealed_secret = ?, secret_hint = ?,
        sealed_previous_secret = ?, previous_secret_expires_at = ?, updated_at = ?, deleted_at = ?
      WHERE id = ? AND version = ? RETURNING *`,
      [
        next.url, JSON.stringify(next.events), JSON.stringify(next.labelSelector), next.enabled ? 1 : 0, next.version,
        next.sealedSecret, next.secretHint, next.sealedPreviousSecret, next.previousSecretExpiresAt, next.updatedAt, next.deletedAt,
        id, readVersion,
      ],
    );
    if (!row) throw new Error(`webhook ${id} is not at version ${readVersion}`);
    return webhookFromRow(row);
  }

  /** The owner's enabled endpoints: who may hear of a new event (the caller matches types and selectors). */
  async enabledWebhooks(ownerId: string): Promise<StoredWebhook[]> {
    const rows = await this.#run.all<WebhookRow>("SELECT * FROM webhooks WHERE owner_id = ? AND enabled = 1 AND deleted_at IS NULL ORDER BY seq", [ownerId]);
    return rows.map(webhookFromRow);
  }

  // ---- outbox ----

  async insertEvent(event: { id: string; ownerId: string; type: string; payload: string; createdAt: number }): Promise<void> {
    await this.#run.all("INSERT INTO webhook_events (id, owner_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)", [
      event.id, event.ownerId, event.type, event.payload, event.createdAt,
    ]);
  }

  async insertDelivery(delivery: { id: string; webhookId: string; eventId: string; createdAt: number }): Promise<void> {
    await this.#run.all(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, attempts, next_attempt_at, created_at)
      VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
      [delivery.id, delivery.webhookId, delivery.eventId, delivery.createdAt, delivery.createdAt],
    );
  }

  /**
   * Leases up to `limit` pending deliveries due at `now` until `leaseUntil`, skipping rows another
   * process holds: each delivery goes to one deliverer at a time, and a deliverer that died lets go
   * when its lease runs out.
   */
  async claimDueDeliveries(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]> {
    const claimed = await this.#run.all<{ seq: number }>(
      `UPDATE webhook_deliveries SET lease_until = ? WHERE seq IN (
        SELECT seq FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
        ORDER BY next_attempt_at LIMIT ?${this.#lock(true)}
      ) RETURNING seq`,
      [leaseUntil, now, now, limit],
    );
    if (claimed.length === 0) return [];
    const rows = await this.#run.all<DeliveryRow & { owner_id: string; payload: string; url: string; sealed_secret: Uint8Array; sealed_previous_secret: Uint8Array | null; previous_secret_expires_at: number | null }>(
      `SELECT ${DELIVERY_COLUMNS}, e.owner_id, e.payload, w.url, w.sealed_secret, w.sealed_previous_secret, w.previous_secret_expires_at
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.seq IN (${placeholders(claimed.length)}) ORDER BY d.seq`,
      claimed.map((row) => num(row.seq)),
    );
    return rows.map((row) => ({
      ...deliveryFromRow(row),
      ownerId: row.owner_id,
      payload: row.payload,
      url: row.url,
      sealedSecret: Buffer.from(row.sealed_secret),
      sealedPreviousSecret: row.sealed_previous_secret === null ? null : Buffer.from(row.sealed_previous_secret),
      previousSecretExpiresAt: numOrNull(row.previous_secret_expires_at),
    }));
  }

  /** Records an attempt's outcome and lets go of the lease. */
  async finishDelivery(seq: number, outcome: DeliveryOutcome): Promise<void> {
    await this.#run.all(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, last_error = ?, next_attempt_at = ?, delivered_at = ?, lease_until = NULL
      WHERE seq = ?`,
      [outcome.status, outcome.attempts, outcome.lastError, outcome.nextAttemptAt, outcome.deliveredAt, seq],
    );
  }

  /** A page of an endpoint's deliveries, newest first, below `beforeSeq`. */
  async listDeliveries(webhookId: string, beforeSeq: number, limit: number): Promise<StoredDelivery[]> {
    const rows = await this.#run.all<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
      [webhookId, beforeSeq, limit],
    );
    return rows.map(deliveryFromRow);
  }

  /** Ends the pending deliveries of a deleted endpoint as failed. */
  async cancelPendingDeliveries(webhookId: string, reason: string): Promise<void> {
    await this.#run.all(
      "UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL, lease_until = NULL WHERE webhook_id = ? AND status = 'pending'",
      [reason, webhookId],
    );
  }

  /** Pending deliveries and when the oldest was made (ms; null with none): the metrics' backlog and lag. */
  async deliveryBacklog(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    const [row] = await this.#run.all<{ pending: number; oldest: number | null }>(
      "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'",
      [],
    );
    return { pending: num(row!.pending), oldestCreatedAt: numOrNull(row!.oldest) };
  }

  // ---- alert marks ----

  /**
   * Records that the alert (`kind` of `keyId` at `at`, threshold in millionths) is sent: true for
   * the one unit of work that records it first, false for every other, in any process, ever.
   */
  async claimAlertMark(keyId: string, kind: string, at: number, thresholdPpm: number, now: number): Promise<boolean> {
    const rows = await this.#run.all(
      `INSERT INTO alert_marks (key_id, kind, at, threshold_ppm, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (key_id, kind, at, threshold_ppm) DO NOTHING RETURNING key_id`,
      [keyId, kind, at, thresholdPpm, now],
    );
    return rows.length === 1;
  }

  /** Keys not revoked that have an expiry or alert settings: what the periodic scan looks at. */
  async alertCandidates(): Promise<AlertCandidate[]> {
    const rows = await this.#run.all<{
      id: string; owner_id: string; name: string; labels: string; expires_at: number | null; created_at: number; rotated_at: number | null;
      spend_limit_micros: number | bigint | null; reset_period: string; alerts: string; spend_windows: string | null;
    }>(
      `SELECT id, owner_id, name, labels, expires_at, created_at, rotated_at, spend_limit_micros, reset_period, alerts, spend_windows
      FROM api_keys WHERE state <> 'revoked' AND (expires_at IS NOT NULL OR alerts <> '{}')`,
      [],
    );
    return rows.map((row) => ({
      id: row.id,
      ownerId: row.owner_id,
      name: row.name,
      labels: JSON.parse(row.labels) as Record<string, string>,
      expiresAt: numOrNull(row.expires_at),
      createdAt: num(row.created_at),
      rotatedAt: numOrNull(row.rotated_at),
      spendLimitMicros: row.spend_limit_micros === null ? null : BigInt(row.spend_limit_micros),
      resetPeriod: row.reset_period,
      alerts: JSON.parse(row.alerts) as AlertCandidate["alerts"],
      spendWindows: row.spend_windows === null ? null : spendWindowsColumn.read(row.spend_windows),
    }));
  }
}
