import type * as pulumi from "@pulumi/pulumi";
import { changedFields, sameJson } from "./compare";
import { credentialHint, sameGateway, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { KeyOperationError } from "./errors";
import { adoptionPinned, cannotMove, rotatedOutsideWarning, wrongOwner } from "./messages";
import { rotationPlanned } from "./rotation";
import { warnIfPreviousSecretInUse } from "./secret-use";
import { containsUnknown, isSettled, type CheckedInputs, type StoredKey } from "./shapes";

/** Carried inputs whose change is recorded with no request: the schedule and the settings of the next rotation. */
const RECORDED_ONLY = ["rotateAfter", "rotationGracePeriod", "retireWhenIdle", "inUseWarning"] as const;

/**
 * Which properties change, and whether the key must be replaced. Name, state and policies are an
 * in-place PATCH; a rotation `check` planned (a new `rotationTrigger`, or `rotateAfter` reached) is
 * an in-place rotation. Only another gateway or another owner replaces the key, and only when the
 * old key's own credentials are at hand to revoke it. A renamed stack or resource (a new
 * `clientReference`) is no change. An unchanged program costs no request; a new provisioning key
 * costs one `whoami`; a rotation while the previous secret's grace runs costs one read, to warn
 * when that secret is still in use (see {@link warnIfPreviousSecretInUse}).
 */
export async function diffKey(context: ProviderContext, stored: StoredKey, news: CheckedInputs): Promise<pulumi.dynamic.DiffResult> {
  // `check` shows the secret as unknown in a preview that rotates it; that is no input of ours.
  const { secret: _shownUnknown, ...desired } = news as CheckedInputs & { secret?: unknown };
  // Where the key goes cannot be known yet: show the worst case rather than surprise at apply.
  if (containsUnknown(desired.connection)) return { changes: true, replaces: ["connection"] };
  if (!isSettled(desired)) return { changes: true, replaces: [] };

  const target = context.connections.require(desired.connection);
  const replaces = (await movesTo(context, stored, target)) ? ["connection"] : [];
  if (replaces.length > 0 && desired.adoptKeyId) throw adoptionPinned(stored.keyId);
  const rotates = rotationPlanned(stored, desired);
  // A secret the stack exports but the gateway no longer accepts: say so on every run until a rotation fixes it.
  if (stored.secret !== undefined && !stored.secretKnown && !rotates) {
    context.diagnostics.warn(rotatedOutsideWarning(stored.keyId), stored.clientReference);
  }
  if (rotates && replaces.length === 0) await warnIfPreviousSecretInUse(context, stored, target);
  const changes =
    replaces.length > 0 ||
    changedFields(stored, desired).length > 0 ||
    rotates ||
    RECORDED_ONLY.some((field) => !sameJson(stored[field], desired[field])) ||
    (desired.rotation !== undefined) !== (stored.rotation !== undefined) ||
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
  if (!canRevokeOld) throw wrongOwner(stored.keyId, stored.ownerId, owner, target);
  return true;
}
