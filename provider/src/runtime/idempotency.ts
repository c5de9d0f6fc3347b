import { createHash } from "node:crypto";
import { canonicalJson, KEY_EXTENSION_LIMITS } from "@gateway-keys/contract";

const digest = (text: string) => createHash("sha256").update(text).digest("base64url");

/**
 * The Idempotency-Key of one account mutation, derived from what the mutation is (its kind, the key
 * and the body; a create's body holds the resource's reference) rather than drawn at random. A run
 * that follows a crash sends the same key for the same operation, so the gateway replays the answer
 * the dead run never recorded — a created key's secret, a rotation's new secret — instead of acting
 * twice. Versioned (`gk1`) so a change of the derivation can never collide with an old one.
 */
export function derivedIdempotencyKey(operation: "create" | "change" | "rotate" | "revoke" | "delete", parts: unknown): string {
  return `gk1-${operation}-${digest(canonicalJson(parts))}`;
}

/**
 * The `clientReference` a key carries on the gateway: the resource's URN, or, for a URN longer than
 * the gateway takes, its beginning and a hash of the whole (still unique, still readable).
 */
export function gatewayReference(urn: string): string {
  const max = KEY_EXTENSION_LIMITS.clientReferenceMaxLength;
  if (urn.length <= max && /^[\x20-\x7e]+$/.test(urn)) return urn;
  const hash = digest(urn);
  const readable = urn.replace(/[^\x20-\x7e]/g, "?");
  return `${readable.slice(0, max - hash.length - 1)}#${hash}`;
}
