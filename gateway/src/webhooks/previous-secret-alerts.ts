import type { PreviousSecretRetiredData, PreviousSecretInUseData } from "@gateway-keys/contract";
import type { z } from "zod";
import { recordChange } from "../audit/record";
import type { AuditOrigin } from "../audit/chain";
import { NO_FIGURES, type PreviousSecretRetireReason, type SecretFigures } from "../store/secret-use-tables";
import { wireClient } from "../keys/secret-use";
import { previousSecretLive } from "../keys/key-records";
import type { StoredApiKey, StoreTransaction } from "../store/types";
import type { AlertSubject } from "./alerts";
import { enqueueEvent } from "./outbox";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** The gateway itself, as the actor of what it decides on its own (a warning sent, a secret retired). */
const SYSTEM: AuditOrigin = { actor: { kind: "system", id: "gateway", hint: null }, idempotencyKey: null, requestId: null };

/** The audit event of what the gateway decided about a key's previous secret: the key's version stays. */
function recordSystemChange(
  tx: StoreTransaction,
  key: PreviousSecretSubject,
  action: "previous_secret_retired" | "previous_secret_in_use",
  changes: Record<string, { old: unknown; new: unknown }>,
  now: number,
): Promise<unknown> {
  const change = { ownerId: key.ownerId, action, keyId: key.id, webhookId: null, versionBefore: key.version, versionAfter: key.version, changes, time: now };
  return recordChange(tx, change, SYSTEM, key.labels);
}

/** The key a previous-secret event is about: who it is, and its version (which the event does not change). */
export interface PreviousSecretSubject extends AlertSubject {
  version: number;
}

/**
 * `key.previous_secret_retired` and its audit event, in the unit of work that retired the secret
 * (the scan's conditional write, a rotation or a revoke): sent once because that write happens once.
 */
export async function announcePreviousSecretRetired(
  tx: StoreTransaction,
  key: PreviousSecretSubject,
  previous: { hint: string; figures: SecretFigures },
  retiredAt: number,
  reason: PreviousSecretRetireReason,
  now: number,
): Promise<void> {
  const data: z.input<typeof PreviousSecretRetiredData> = {
    keyId: key.id,
    ownerId: key.ownerId,
    name: key.name,
    labels: key.labels,
    previousSecretHint: previous.hint,
    retiredAt: iso(retiredAt),
    reason,
    lastUsedAt: isoOrNull(previous.figures.lastUsedAt),
    requestsSinceRotation: previous.figures.requests,
  };
  await enqueueEvent(tx, { ownerId: key.ownerId, type: "key.previous_secret_retired", keyLabels: key.labels, data, at: now });
  await recordSystemChange(tx, key, "previous_secret_retired", {
    previousSecretRetiredAt: { old: null, new: iso(retiredAt) },
    previousSecretRetiredReason: { old: null, new: reason },
  }, now);
}

/**
 * `key.previous_secret_in_use` and its audit event, at most once per rotation (an alert mark on the
 * rotation's instant decides, across processes and restarts). `clients` are those that presented
 * the secret since the rotation, most recent first. Returns whether this call sent it.
 */
export async function warnPreviousSecretInUse(
  tx: StoreTransaction,
  key: PreviousSecretSubject & { rotatedAt: number },
  previous: { hint: string; expiresAt: number; figures: SecretFigures },
  now: number,
): Promise<boolean> {
  if (!(await tx.events.claimAlertMark(key.id, "previous_secret_in_use", key.rotatedAt, 0, now))) return false;
  const clients = previous.figures.clients.filter((client) => client.lastSeenAt >= key.rotatedAt);
  const data: z.input<typeof PreviousSecretInUseData> = {
    keyId: key.id,
    ownerId: key.ownerId,
    name: key.name,
    labels: key.labels,
    previousSecretHint: previous.hint,
    expiresAt: iso(previous.expiresAt),
    lastUsedAt: isoOrNull(previous.figures.lastUsedAt),
    requestsSinceRotation: previous.figures.requests,
    clients: clients.map(wireClient),
  };
  await enqueueEvent(tx, { ownerId: key.ownerId, type: "key.previous_secret_in_use", keyLabels: key.labels, data, at: now });
  await recordSystemChange(tx, key, "previous_secret_in_use", {}, now);
  return true;
}

/**
 * Extension `secret_use`, in a rotate's or revoke's unit of work once the key's row is written
 * (`before` as read, `after` as written): a rotation makes the replaced secret's figures the
 * previous secret's and drops older ones; a previous secret that was still live is retired by the
 * change — reason `rotated` or `revoked` — with its event and audit event. Every rotation (single
 * or bulk) and every revoke goes through here.
 */
export async function recordSecretChange(
  tx: StoreTransaction,
  action: "rotate" | "revoke",
  before: StoredApiKey,
  after: StoredApiKey,
  now: number,
): Promise<void> {
  const ended = previousSecretLive(before, now) && before.previousSecret !== null ? before.previousSecret : null;
  const figures = ended ? (await tx.secretUse.figuresOf([before.id])).get(before.id)?.get(before.previousSecretHash!.toString("hex")) : undefined;
  if (action === "rotate") await tx.secretUse.rotated(after.id, after.previousSecretHash, now);
  if (ended === null) return;
  const reason = action === "rotate" ? "rotated" : "revoked";
  await announcePreviousSecretRetired(
    tx,
    { ...before, version: after.version },
    { hint: ended.hint, figures: figures ?? NO_FIGURES },
    now,
    reason,
    now,
  );
}
