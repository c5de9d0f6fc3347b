import type { PreviousSecretRetiredData, PreviousSecretInUseData } from "@gateway-keys/contract";
import type { z } from "zod";
import { recordChange } from "../audit/record";
import type { AuditOrigin } from "../audit/chain";
import type { PreviousSecretRetireReason, SecretFigures } from "../store/secret-use-tables";
import type { StoreTransaction } from "../store/types";
import type { AlertSubject } from "./alerts";
import { enqueueEvent } from "./outbox";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** The gateway itself, as the actor of what it decides on its own (a warning sent, a secret retired). */
const SYSTEM: AuditOrigin = { actor: { kind: "system", id: "gateway", hint: null }, idempotencyKey: null, requestId: null };

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
  await recordChange(
    tx,
    {
      ownerId: key.ownerId,
      action: "previous_secret_retired",
      keyId: key.id,
      webhookId: null,
      versionBefore: key.version,
      versionAfter: key.version,
      changes: { previousSecretRetiredAt: { old: null, new: iso(retiredAt) }, previousSecretRetiredReason: { old: null, new: reason } },
      time: now,
    },
    SYSTEM,
    key.labels,
  );
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
    clients: clients.map((client) => ({
      userAgent: client.userAgent,
      address: client.address,
      firstSeenAt: iso(client.firstSeenAt),
      lastSeenAt: iso(client.lastSeenAt),
      requests: client.requests,
    })),
  };
  await enqueueEvent(tx, { ownerId: key.ownerId, type: "key.previous_secret_in_use", keyLabels: key.labels, data, at: now });
  await recordChange(
    tx,
    {
      ownerId: key.ownerId,
      action: "previous_secret_in_use",
      keyId: key.id,
      webhookId: null,
      versionBefore: key.version,
      versionAfter: key.version,
      changes: {},
      time: now,
    },
    SYSTEM,
    key.labels,
  );
  return true;
}
