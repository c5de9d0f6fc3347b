import type * as pulumi from "@pulumi/pulumi";
import { changedFields, sameJson, triggerChanged } from "./compare";
import { credentialHint, sameGateway, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { adoptionPinned, cannotMove, KeyOperationError, wrongOwner } from "./messages";
import { containsUnknown, isSettled, type CheckedInputs, type StoredKey } from "./shapes";

/**
 * Which properties change, and whether the key must be replaced. Name, state and policies are an
 * in-place PATCH; a new `rotationTrigger` is an in-place rotation. Only another gateway or another
 * owner replaces the key, and only when the old key's own credentials are at hand to revoke it.
 * An unchanged program costs no request; a new provisioning key costs one `whoami`.
 */
export async function diffKey(context: ProviderContext, stored: StoredKey, desired: CheckedInputs): Promise<pulumi.dynamic.DiffResult> {
  // Where the key goes cannot be known yet: show the worst case rather than surprise at apply.
  if (containsUnknown(desired.connection)) return { changes: true, replaces: ["connection"] };
  if (!isSettled(desired)) return { changes: true, replaces: [] };

  const target = context.connections.require(desired.connection);
  const replaces = (await movesTo(context, stored, target)) ? ["connection"] : [];
  if (replaces.length > 0 && desired.adoptKeyId) throw adoptionPinned(stored.keyId);
  const changes =
    replaces.length > 0 ||
    changedFields(stored, desired).length > 0 ||
    triggerChanged(stored, desired) ||
    !sameJson(stored.connection, desired.connection) ||
    credentialHint(target) !== stored.provisioningKeyHint;
  return { changes, replaces, deleteBeforeReplace: false };
}

/** Whether the program now puts the key on another gateway or under another owner. */
async function movesTo(context: ProviderContext, stored: StoredKey, target: Connection): Promise<boolean> {
  // The old key is revoked with its own credentials; only a `connection` input keeps them in state.
  const canRevokeOld = stored.connection?.provisioningKey !== undefined;
  if (!sameGateway(target.baseUrl, stored.baseUrl)) {
    if (!canRevokeOld) throw cannotMove(stored.keyId, stored.baseUrl, target.baseUrl);
    return true;
  }
  if (credentialHint(target) === stored.provisioningKeyHint) return false;
  let owner: string | undefined;
  try {
    owner = await context.owners.ownerOf(target);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new KeyOperationError(`could not ask ${target.baseUrl} whose provisioning key is configured for key ${stored.keyId}: ${reason}`, {
      cause: error,
    });
  }
  // Unknown owner (no whoami): the update verifies the new credential by reading the key with it.
  if (owner === undefined || owner === stored.ownerId) return false;
  if (!canRevokeOld) throw wrongOwner(stored.keyId, stored.ownerId, owner, target.baseUrl);
  return true;
}
