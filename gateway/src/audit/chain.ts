import { AUDIT_GENESIS_HASH, canonicalJson, type AuditActor, type AuditEvent, type AuditVerification } from "@gateway-keys/contract";
import { createHash } from "node:crypto";
import { newId } from "../crypto";
import type { StoredAuditEvent } from "../store/events/event-rows";
import type { Store, StoreTransaction } from "../store/types";

/** What the request that made a change says about it: who, under which Idempotency-Key, which request. */
export interface AuditOrigin {
  actor: AuditActor;
  idempotencyKey: string | null;
  requestId: string | null;
}

/** One change to record: the action, the resource and its versions, the fields changed. */
export type AuditEntry = Pick<StoredAuditEvent, "ownerId" | "action" | "keyId" | "webhookId" | "teamId" | "versionBefore" | "versionAfter" | "changes" | "time">;

/**
 * The hash of an event: SHA-256 (hex) of its `prevHash`, a newline, and the canonical JSON
 * (contract/src/canonical-json.ts) of every other field, with `time` as milliseconds since the
 * epoch. Anyone holding the events can recompute it; docs/api/audit-and-webhooks.md#audit-events spells it out.
 */
export function auditHashOf(event: Omit<StoredAuditEvent, "hash">): string {
  const { prevHash, ...content } = event;
  return createHash("sha256").update(`${prevHash}\n${canonicalJson(content)}`).digest("hex");
}

/**
 * Appends one event to the owner's chain in the caller's unit of work, so it commits with the
 * change it records or not at all. The owner's head is held until the unit of work ends: two
 * changes of one owner append one after the other, never both at one `seq`.
 */
export async function appendAudit(tx: StoreTransaction, entry: AuditEntry, origin: AuditOrigin): Promise<StoredAuditEvent> {
  const head = await tx.events.lockAuditHead(entry.ownerId);
  const unhashed: Omit<StoredAuditEvent, "hash"> = {
    ...entry,
    ...origin,
    seq: head.seq + 1,
    id: newId("aud"),
    prevHash: head.hash,
  };
  const event = { ...unhashed, hash: auditHashOf(unhashed) };
  await tx.events.appendAuditEvent(event);
  return event;
}

/** The wire form of a stored event. */
export function toWireAuditEvent(event: StoredAuditEvent): AuditEvent {
  return {
    object: "audit_event",
    id: event.id,
    time: new Date(event.time).toISOString(),
    ownerId: event.ownerId,
    actor: event.actor,
    action: event.action as AuditEvent["action"],
    keyId: event.keyId,
    webhookId: event.webhookId,
    teamId: event.teamId ?? null,
    versionBefore: event.versionBefore,
    versionAfter: event.versionAfter,
    changes: event.changes,
    idempotencyKey: event.idempotencyKey,
    requestId: event.requestId,
    seq: event.seq,
    prevHash: event.prevHash,
    hash: event.hash,
  };
}

const VERIFY_PAGE = 500;

/**
 * Walks the owner's chain from its first event: each `seq` must follow the last, each `prevHash`
 * name the last hash, each hash match the event's content, and the head recorded beside the chain
 * must be the last event (so removing the newest rows shows too). Reads page by page, in units of
 * work of their own.
 */
export async function verifyAuditChain(store: Store, ownerId: string): Promise<AuditVerification> {
  let expectedSeq = 1;
  let lastHash = AUDIT_GENESIS_HASH;
  let checked = 0;
  const broken = (problem: AuditVerification["problem"], event: { seq: number; id: string | null }): AuditVerification => ({
    object: "audit_verification",
    ownerId,
    valid: false,
    eventsChecked: checked,
    headHash: lastHash,
    problem,
    brokenAtSeq: event.seq,
    brokenEventId: event.id,
  });
  for (;;) {
    const page = await store.transaction((tx) => tx.events.auditChain(ownerId, expectedSeq - 1, VERIFY_PAGE));
    for (const event of page) {
      if (event.seq !== expectedSeq) return broken("sequence_gap", { seq: expectedSeq, id: event.id });
      if (event.prevHash !== lastHash) return broken("prev_hash_mismatch", event);
      const { hash, ...unhashed } = event;
      if (auditHashOf(unhashed) !== hash) return broken("hash_mismatch", event);
      lastHash = hash;
      expectedSeq += 1;
      checked += 1;
    }
    if (page.length < VERIFY_PAGE) break;
  }
  const head = await store.transaction((tx) => tx.events.auditHead(ownerId));
  const headSeq = head?.seq ?? 0;
  if (headSeq !== expectedSeq - 1 || (head?.hash ?? AUDIT_GENESIS_HASH) !== lastHash) {
    return broken("head_mismatch", { seq: headSeq, id: null });
  }
  return { object: "audit_verification", ownerId, valid: true, eventsChecked: checked, headHash: lastHash, problem: null, brokenAtSeq: null, brokenEventId: null };
}
