import type * as pulumi from "@pulumi/pulumi";
import { canonicalJson, type ApiKey, type UpdateApiKeyRequest } from "@gateway-keys/contract";
import { ConflictError, NotFoundError } from "@gateway-keys/sdk";
import { changedFields, triggerChanged } from "./compare";
import { credentialHint, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { inputsOf, keyState, type SecretKnowledge } from "./key-state";
import { describeCreateFailure, describeFailure, goneOutside, KeyOperationError, ownerUnknown, wrongOwner } from "./messages";
import type { DesiredKey, ReadInputs, StoredKey } from "./shapes";

/** Creates the key with one request, or adopts an existing one. A retried request never makes a second key: the SDK keeps one Idempotency-Key. */
export async function createKey(context: ProviderContext, inputs: DesiredKey): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  const connection = context.connections.require(inputs.connection);
  if (inputs.adoptKeyId) return adoptKey(context, inputs.adoptKeyId, inputs, connection);
  try {
    const { secret, ...record } = await context.connections.client(connection).apiKeys.create({
      name: inputs.name,
      state: inputs.state,
      spendPolicy: inputs.spendPolicy ?? null,
      loggingPolicy: inputs.loggingPolicy,
      modelPolicy: inputs.modelPolicy,
    });
    return { id: record.keyId, outs: keyState(record, connection, { secret, secretKnown: true }, inputs) };
  } catch (error) {
    throw describeCreateFailure(inputs.name, connection.baseUrl, error);
  }
}

/**
 * Takes over an existing key instead of creating one: one read, and no change at all. The live key
 * must already be what the program declares, as with Pulumi's own import.
 */
async function adoptKey(
  context: ProviderContext,
  keyId: string,
  inputs: DesiredKey,
  connection: Connection,
): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  let record: ApiKey;
  try {
    record = await context.connections.client(connection).apiKeys.get(keyId);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new KeyOperationError(`cannot adopt key ${keyId}: no such key for this provisioning key's owner on ${connection.baseUrl}`);
    }
    throw describeFailure(keyId, "adopt", error, 0);
  }
  if (record.state === "revoked") throw new KeyOperationError(`cannot adopt key ${keyId}: it is revoked, and a revoked key can never be used again`);
  const state = keyState(record, connection, { secret: undefined, secretKnown: false }, inputs);
  const differences = changedFields(state, inputs).map(
    (field) => `${field}: the key has ${canonicalJson(state[field])}, the program declares ${canonicalJson(inputs[field])}`,
  );
  if (differences.length > 0) {
    throw new KeyOperationError(
      `cannot adopt key ${keyId}: it differs from the program (${differences.join("; ")}). ` +
        "Make the program match the key, adopt it, then change it in a later update. Nothing was changed.",
    );
  }
  return { id: record.keyId, outs: state };
}

/** What refresh learns of a key: nothing when it is gone, else its outputs and the inputs they imply. */
export interface KeyRead {
  id?: string;
  props?: StoredKey;
  inputs?: ReadInputs;
}

/**
 * Reads the live key for refresh. Its name, state and policies become the inputs, so a change made
 * outside Pulumi shows in the next preview. A revoked or missing key leaves the stack.
 */
export async function readKey(context: ProviderContext, id: string, stored: StoredKey | undefined): Promise<KeyRead> {
  const connection = context.connections.existing(stored);
  let record: ApiKey;
  try {
    record = await context.connections.client(connection).apiKeys.get(id);
  } catch (error) {
    if (error instanceof NotFoundError && stored) {
      await requireOwnersCredentials(context, id, stored, connection);
      return {};
    }
    throw describeFailure(id, "read", error, stored?.version ?? 0);
  }
  if (record.state === "revoked") return {};
  // The secret in state stays valid only while nobody rotated the key outside this stack.
  const secretStillValid = stored?.secretKnown === true && stored.rotatedAt === record.rotatedAt;
  const secret: SecretKnowledge = secretStillValid ? { secret: stored.secret, secretKnown: true } : { secret: undefined, secretKnown: false };
  const state = keyState(record, connection, secret, { rotationTrigger: stored?.rotationTrigger, connection: stored?.connection });
  return { id, props: state, inputs: inputsOf(state) };
}

/** Applies name, state and policy changes with one PATCH, then one rotate when the trigger changed. */
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
    const body: UpdateApiKeyRequest = { expectedVersion: stored.version };
    for (const field of changed) Object.assign(body, { [field]: desired[field] ?? null });
    try {
      record = await client.apiKeys.update(id, body);
    } catch (error) {
      throw await explain(context, id, "change", error, stored, connection);
    }
  }
  if (triggerChanged(stored, desired)) {
    try {
      const { secret: issued, ...rotated } = await client.apiKeys.rotate(id, { expectedVersion: record?.version ?? stored.version });
      record = rotated;
      secret = { secret: issued, secretKnown: true };
    } catch (error) {
      const failure = await explain(context, id, "rotate", error, { ...stored, version: record?.version ?? stored.version }, connection);
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
      record = await client.apiKeys.get(id);
    } catch (error) {
      throw await explain(context, id, "read", error, stored, connection);
    }
  }
  if (!record) {
    // Only the `connection` input changed, same gateway and credential: nothing to send.
    const outs: StoredKey = { ...stored };
    delete outs.connection;
    if (desired.connection !== undefined) outs.connection = desired.connection;
    return { outs };
  }
  return { outs: keyState(record, connection, secret, desired) };
}

/** Revokes the key (irreversible). Already revoked or gone counts as done; another owner's credentials do not. */
export async function deleteKey(context: ProviderContext, id: string, stored: StoredKey): Promise<void> {
  const connection = context.connections.existing(stored);
  try {
    await context.connections.client(connection).apiKeys.revoke(id, { expectedVersion: stored.version });
  } catch (error) {
    if (error instanceof ConflictError && error.code === "key_revoked") return;
    if (error instanceof NotFoundError) return requireOwnersCredentials(context, id, stored, connection);
    throw describeFailure(id, "revoke", error, stored.version);
  }
}

/** After a 404: passes when the credentials are the key's owner's (so the key really is gone), throws otherwise. */
async function requireOwnersCredentials(context: ProviderContext, id: string, stored: StoredKey, connection: Connection): Promise<void> {
  const ownership = await context.owners.ownershipOf(connection, stored);
  if (ownership.kind === "another") throw wrongOwner(id, stored.ownerId, ownership.owner, connection.baseUrl);
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
  if (!(error instanceof NotFoundError)) return describeFailure(id, action, error, stored.version);
  try {
    await requireOwnersCredentials(context, id, stored, connection);
  } catch (ownership) {
    return ownership as Error;
  }
  return goneOutside(id, connection.baseUrl);
}
