import type { StoredApiKey, StoreTransaction } from "../store/types";
import { enqueueEvent } from "../webhooks/outbox";
import { appendAudit, toWireAuditEvent, type AuditEntry, type AuditOrigin } from "./chain";
import { keyChanges } from "./key-changes";

/**
 * Records an account change in the caller's unit of work: its audit event, and the
 * `audit.<action>` webhook event for every endpoint that hears of it. `keyLabels` are the changed
 * key's labels (for endpoints' label selectors), null for a change of no key.
 */
export async function recordChange(
  tx: StoreTransaction,
  entry: AuditEntry,
  origin: AuditOrigin,
  keyLabels: Record<string, string> | null,
): Promise<void> {
  const event = await appendAudit(tx, entry, origin);
  await enqueueEvent(tx, { ownerId: entry.ownerId, type: `audit.${entry.action}`, keyLabels, data: toWireAuditEvent(event), at: entry.time });
}

/**
 * Records a change of one key (`create`, `update`, `rotate`, `revoke`) in the caller's unit of work:
 * the fields it changed, its versions, at the change's `updatedAt`.
 */
export function recordKeyChange(tx: StoreTransaction, action: string, before: StoredApiKey | null, after: StoredApiKey, origin: AuditOrigin): Promise<void> {
  return recordChange(
    tx,
    {
      ownerId: after.ownerId,
      action,
      keyId: after.id,
      webhookId: null,
      versionBefore: before?.version ?? null,
      versionAfter: after.version,
      changes: keyChanges(before, after),
      time: after.updatedAt,
    },
    origin,
    after.labels,
  );
}
