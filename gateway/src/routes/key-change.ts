import type { AuditOrigin } from "../audit/chain";
import { recordKeyChange } from "../audit/record";
import type { GatewayContext } from "../context";
import { GatewayError } from "../errors";
import type { ApiKeyUpdate, StoredApiKey, StoreTransaction } from "../store/types";
import { recordSecretChange } from "../webhooks/previous-secret-alerts";

/** What a key change through the account API does to a key. */
export type KeyChangeAction = "update" | "rotate" | "revoke";

export function keyNotFound(): GatewayError {
  // Also the answer for another owner's key: existence is never revealed across owners.
  return new GatewayError("key_not_found", "No API key with this id belongs to your account.", { param: "keyId" });
}

/**
 * One change of one key, checked and written in the caller's unit of work — the change, rotate and
 * revoke endpoints and each key of a bulk rotation alike: the key is read (and held) in the
 * transaction, `change` applies the lifecycle rules, the key cache forgets the key before the
 * write commits, and the audit event (with its webhook event) is recorded with it.
 */
export async function changeKeyIn(
  ctx: GatewayContext,
  tx: StoreTransaction,
  by: { ownerId: string; origin: AuditOrigin },
  action: KeyChangeAction,
  keyId: string,
  change: (current: StoredApiKey) => ApiKeyUpdate,
): Promise<StoredApiKey> {
  const current = await tx.getApiKey(by.ownerId, keyId);
  if (!current) throw keyNotFound();
  const next = change(current);
  ctx.keys.forget(keyId);
  const updated = await tx.updateApiKey(keyId, current.version, next);
  await recordKeyChange(tx, action, current, updated, by.origin);
  // Extension secret_use: the figures move with the secrets; a previous secret this ends is retired by it.
  if (action !== "update") await recordSecretChange(tx, action, current, updated, next.updatedAt);
  return updated;
}
