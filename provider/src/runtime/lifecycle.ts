import type * as pulumi from "@pulumi/pulumi";
import type { ApiKey, RotateApiKeyRequest } from "@gateway-keys/contract";
import { ConflictError, NotFoundError, ValidationError } from "@gateway-keys/sdk";
import { changedFields, changeRequest } from "./compare";
import { callOptions, credentialHint, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { KeyOperationError } from "./errors";
import { derivedIdempotencyKey } from "./idempotency";
import { carriedOf, inputsOf, keyState, withCarried, type SecretKnowledge } from "./key-state";
import {
  describeFailure,
  goneOutside,
  graceUnsupported,
  ownerUnknown,
  rotatedOutsideWarning,
  secretUseUnsupported,
  wrongOwner,
} from "./messages";
import { rotationPlanned } from "./rotation";
import type { DesiredKey, ReadInputs, StoredKey } from "./shapes";
import { durationSeconds } from "./time";

export { createKey } from "./create";

/** What refresh learns of a key: nothing when it is gone, else its outputs and the inputs they imply. */
export interface KeyRead {
  id?: string;
  props?: StoredKey;
  inputs?: ReadInputs;
}

/**
 * Reads the live key for refresh. Its name, state and policies become the inputs, so a change made
 * outside Pulumi shows in the next preview. A revoked or missing key leaves the stack. A key
 * rotated outside keeps its `secret` output, marked `secretKnown: false`, with a warning that says
 * how to get a working secret back: an output that silently vanished would break its consumers
 * without a word.
 */
export async function readKey(context: ProviderContext, id: string, stored: StoredKey | undefined): Promise<KeyRead> {
  const connection = context.connections.existing(stored);
  let record: ApiKey;
  try {
    record = await context.connections.client(connection).apiKeys.get(id, callOptions(connection));
  } catch (error) {
    if (error instanceof NotFoundError && stored) {
      await requireOwnersCredentials(context, id, stored, connection);
      return {};
    }
    throw describeFailure(id, "read", error, stored?.version ?? 0, connection);
  }
  if (record.state === "revoked") return {};
  // The secret in state stays the key's own only while nobody rotated the key outside this stack.
  const stillCurrent = stored?.secretKnown === true && stored.rotatedAt === record.rotatedAt;
  const secret: SecretKnowledge = { secret: stored?.secret, secretKnown: stillCurrent };
  const state = keyState(record, connection, secret, stored ? carriedOf(stored) : {});
  return { id, props: state, inputs: inputsOf(state) };
}

/**
 * Applies name, state and policy changes with one PATCH, then one rotate when `check` planned one
 * (a new `rotationTrigger`, or `rotateAfter` reached), with the declared grace period. Each call
 * carries an Idempotency-Key derived from the key, the version and the body, so a run after a crash
 * gets the answer the dead run never recorded — a rotation's new secret too.
 */
export async function updateKey(
  context: ProviderContext,
  id: string,
  stored: StoredKey,
  desired: DesiredKey,
): Promise<pulumi.dynamic.UpdateResult<StoredKey>> {
  const connection = context.connections.require(desired.connection);
  const client = context.connections.client(connection);
  const changed = changedFields(stored, desired);
  let record: ApiKey | undefined;
  let secret: SecretKnowledge = { secret: stored.secret, secretKnown: stored.secretKnown };

  if (changed.length > 0) {
    const body = changeRequest(stored.version, changed, desired);
    try {
      const idempotencyKey = derivedIdempotencyKey("change", { keyId: id, body });
      record = await client.apiKeys.update(id, body, { ...callOptions(connection), idempotencyKey });
    } catch (error) {
      throw await explain(context, id, "change", error, stored, connection);
    }
  }
  if (rotationPlanned(stored, desired)) {
    const body: RotateApiKeyRequest = { expectedVersion: record?.version ?? stored.version };
    Object.assign(body, rotationSettings(desired));
    try {
      const idempotencyKey = derivedIdempotencyKey("rotate", { keyId: id, body });
      const { secret: issued, ...rotated } = await client.apiKeys.rotate(id, body, { ...callOptions(connection), idempotencyKey });
      record = rotated;
      secret = { secret: issued, secretKnown: true };
    } catch (error) {
      const failure = await rotateFailure(context, id, error, { ...stored, version: body.expectedVersion }, connection);
      if (!record) throw failure;
      // The PATCH landed; the rotation did not. Saying so beats recording a half-applied update.
      throw new KeyOperationError(
        `key ${id}: the change of ${changed.join(", ")} was applied (now version ${record.version}), but the rotation failed: ` +
          `${failure.message} Once that is resolved, \`pulumi refresh\` then \`pulumi up\` rotates the key.`,
        { cause: failure },
      );
    }
  }
  if (!record && credentialHint(connection) !== stored.provisioningKeyHint) {
    // Only the credential changed: prove it manages this key before recording it.
    try {
      record = await client.apiKeys.get(id, callOptions(connection));
    } catch (error) {
      throw await explain(context, id, "read", error, stored, connection);
    }
  }
  // Nothing sent (only what the stack carries changed: connection, schedule, reference): record it.
  if (!record) return { outs: withCarried(stored, desired) };
  return { outs: keyState(record, connection, secret, desired) };
}

/** The declared grace of a rotation as rotate's body carries it: each setting the program declares, in seconds. */
function rotationSettings(desired: DesiredKey): Omit<RotateApiKeyRequest, "expectedVersion"> {
  const settings: Omit<RotateApiKeyRequest, "expectedVersion"> = {};
  if (desired.rotationGracePeriod !== undefined) settings.gracePeriodSeconds = durationSeconds(desired.rotationGracePeriod);
  if (desired.retireWhenIdle !== undefined) settings.retireWhenIdleSeconds = durationSeconds(desired.retireWhenIdle);
  if (desired.inUseWarning !== undefined) settings.inUseWarningSeconds = durationSeconds(desired.inUseWarning);
  return settings;
}

/** Why a rotate failed: a gateway without the extension a setting needs says which to remove. */
async function rotateFailure(context: ProviderContext, id: string, error: unknown, stored: StoredKey, connection: Connection): Promise<Error> {
  if (error instanceof ValidationError && error.param === "gracePeriodSeconds") return graceUnsupported(id, connection.baseUrl);
  if (error instanceof ValidationError && (error.param === "retireWhenIdleSeconds" || error.param === "inUseWarningSeconds")) {
    return secretUseUnsupported(id, connection.baseUrl, error.param);
  }
  return explain(context, id, "rotate", error, stored, connection);
}

/** Revokes the key (irreversible). Already revoked or gone counts as done; another owner's credentials do not. */
export async function deleteKey(context: ProviderContext, id: string, stored: StoredKey): Promise<void> {
  const connection = context.connections.existing(stored);
  const body = { expectedVersion: stored.version };
  try {
    const idempotencyKey = derivedIdempotencyKey("revoke", { keyId: id, body });
    await context.connections.client(connection).apiKeys.revoke(id, body, { ...callOptions(connection), idempotencyKey });
  } catch (error) {
    if (error instanceof ConflictError && error.code === "key_revoked") return;
    if (error instanceof NotFoundError) return requireOwnersCredentials(context, id, stored, connection);
    throw describeFailure(id, "revoke", error, stored.version, connection);
  }
}

/** After a 404: passes when the credentials are the key's owner's (so the key really is gone), throws otherwise. */
async function requireOwnersCredentials(context: ProviderContext, id: string, stored: StoredKey, connection: Connection): Promise<void> {
  let ownership;
  try {
    ownership = await context.owners.ownershipOf(connection, stored);
  } catch (error) {
    throw describeFailure(id, "check the owner of", error, stored.version, connection);
  }
  if (ownership.kind === "another") throw wrongOwner(id, stored.ownerId, ownership.owner, connection);
  if (ownership.kind === "unknown") throw ownerUnknown(id, connection.baseUrl);
}

async function explain(
  context: ProviderContext,
  id: string,
  action: string,
  error: unknown,
  stored: StoredKey,
  connection: Connection,
): Promise<Error> {
  if (!(error instanceof NotFoundError)) return describeFailure(id, action, error, stored.version, connection);
  try {
    await requireOwnersCredentials(context, id, stored, connection);
  } catch (ownership) {
    return ownership as Error;
  }
  return goneOutside(id, connection.baseUrl);
}
