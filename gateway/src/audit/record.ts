import type { StoreTransaction } from "../store/types";
import { enqueueEvent } from "../webhooks/outbox";
import { appendAudit, toWireAuditEvent, type AuditEntry, type AuditOrigin } from "./chain";

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
