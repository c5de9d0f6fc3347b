import type * as pulumi from "@pulumi/pulumi";
import { hintOf } from "@gateway-keys/contract";
import type { ApiKeyState } from "../inputs";
import { resolveConnection } from "./connection";
import { canonical, changedFields, UNKNOWN, type DesiredKey } from "./desired";
import { wrongOwner } from "./messages";
import { ownerOf } from "./owner";

/** Outputs that never change while the key lives: the engine may rely on them during an update. */
const STABLE_OUTPUTS = ["keyId", "ownerId", "baseUrl", "createdAt"];

function sameUrl(a: string, b: string): boolean {
  return new URL(a).href.replace(/\/+$/, "") === new URL(b).href.replace(/\/+$/, "");
}

/**
 * Which properties change, and whether the key must be replaced. Name, state and policies are an
 * in-place PATCH; a new `rotationTrigger` is an in-place rotation. Only another gateway or another
 * owner replaces the key. An unchanged program costs no request; a new provisioning key costs one
 * `whoami` to learn whether its owner is the key's.
 */
export async function diffKey(stored: ApiKeyState & { connection?: DesiredKey["connection"] }, desired: DesiredKey): Promise<pulumi.dynamic.DiffResult> {
  if (JSON.stringify(desired).includes(UNKNOWN)) return { changes: true, stables: STABLE_OUTPUTS };
  const replaces: string[] = [];
  const target = resolveConnection(desired.connection);
  if (target.baseUrl && !sameUrl(target.baseUrl, stored.baseUrl)) {
    replaces.push("connection");
  } else if (target.baseUrl && target.provisioningKey && hintOf(target.provisioningKey) !== stored.provisioningKeyHint) {
    const owner = await ownerOf({ baseUrl: target.baseUrl, provisioningKey: target.provisioningKey });
    if (owner !== undefined && owner !== stored.ownerId) {
      // Moving a key to another owner means revoking it with the old owner's credentials. Only a
      // key whose own `connection` input holds them can be moved; otherwise the configured
      // provisioning key is simply the wrong one for this stack, and nothing may be touched.
      if (!stored.connection?.provisioningKey) throw wrongOwner(stored.keyId, stored.ownerId, owner, target.baseUrl);
      replaces.push("connection");
    }
  }
  const changes =
    replaces.length > 0 ||
    changedFields(stored, desired).length > 0 ||
    canonical(stored.rotationTrigger) !== canonical(desired.rotationTrigger) ||
    canonical(stored.connection) !== canonical(desired.connection);
  return { changes, replaces, stables: STABLE_OUTPUTS, deleteBeforeReplace: false };
}
