import type * as pulumi from "@pulumi/pulumi";
import { ConflictError, NotFoundError } from "@gateway-keys/sdk";
import type { ApiKeyState } from "../inputs";
import { clientFor, existingConnection, requireConnection } from "./connection";
import { canonical, changedFields, type DesiredKey } from "./desired";
import { inputsOf, keyState } from "./key-state";
import { describeFailure, goneOutside, KeyOperationError, wrongOwner } from "./messages";
import { isAnotherOwner } from "./owner";

type StoredKey = ApiKeyState & { connection?: DesiredKey["connection"] };

/**
 * Takes over an existing key instead of creating one: one read, and no change at all. The live key
 * must already be what the program declares, as with Pulumi's own import.
 */
async function adoptKey(keyId: string, inputs: DesiredKey): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  const connection = requireConnection(inputs.connection);
  let record;
  try {
    record = await clientFor(connection).apiKeys.get(keyId);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new KeyOperationError(`cannot adopt key ${keyId}: no such key for this provisioning key's owner on ${connection.baseUrl}`);
    }
    throw describeFailure(keyId, "adopt", error, 0);
  }
  if (record.state === "revoked") throw new KeyOperationError(`cannot adopt key ${keyId}: it is revoked, and a revoked key can never be used again`);
  const state = keyState(record, connection, { secret: undefined, secretKnown: false }, inputs);
  const differences = changedFields(state, inputs).map(
    (field) => `${field}: the key has ${canonical(state[field] ?? null)}, the program declares ${canonical(inputs[field] ?? null)}`,
  );
  if (differences.length > 0) {
    throw new KeyOperationError(
      `cannot adopt key ${keyId}: it differs from the program (${differences.join("; ")}). ` +
        "Make the program match the key, adopt it, then change it in a later update. Nothing was changed.",
    );
  }
  return { id: record.keyId, outs: state };
}

/** Creates the key with one request. The SDK retries with one Idempotency-Key, so a retry never makes a second key. */
export async function createKey(inputs: DesiredKey): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  if (inputs.adoptKeyId) return adoptKey(inputs.adoptKeyId, inputs);
  const connection = requireConnection(inputs.connection);
  try {
    const { secret, ...record } = await clientFor(connection).apiKeys.create({
      name: inputs.name,
      state: inputs.state,
      spendPolicy: inputs.spendPolicy ?? null,
      loggingPolicy: inputs.loggingPolicy,
      modelPolicy: inputs.modelPolicy,
    });
    return { id: record.keyId, outs: keyState(record, connection, { secret, secretKnown: true }, inputs) };
  } catch (error) {
    throw describeFailure(inputs.name, "create", error, 0);
  }
}

/**
 * Reads the live key for refresh and import. Its name, state and policies become the inputs, so a
 * change made outside Pulumi shows in the next preview. A revoked or missing key leaves the stack.
 */
export async function readKey(id: string, stored: Partial<StoredKey> | undefined): Promise<pulumi.dynamic.ReadResult> {
  const connection = existingConnection(stored);
  let record;
  try {
    record = await clientFor(connection).apiKeys.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) {
      const otherOwner = await isAnotherOwner(connection, stored?.ownerId);
      if (otherOwner) throw wrongOwner(id, stored!.ownerId!, otherOwner, connection.baseUrl);
      return {};
    }
    throw describeFailure(id, "read", error, stored?.version ?? 0);
  }
  if (record.state === "revoked") return {};
  // The secret in state stays valid only while nobody rotated the key outside this stack.
  const secretStillValid = stored?.secretKnown === true && stored.rotatedAt === record.rotatedAt;
  const secret = secretStillValid ? { secret: stored.secret, secretKnown: true } : { secret: undefined, secretKnown: false };
  const state = keyState(record, connection, secret, { rotationTrigger: stored?.rotationTrigger, connection: stored?.connection });
  return { id, props: state, inputs: inputsOf(state) };
}

/** Applies name, state and policy changes with one PATCH, then one rotate when the trigger changed. */
export async function updateKey(id: string, stored: StoredKey, desired: DesiredKey): Promise<pulumi.dynamic.UpdateResult<StoredKey>> {
  const connection = requireConnection(desired.connection);
  const client = clientFor(connection);
  const changed = changedFields(stored, desired);
  const rotate = canonical(stored.rotationTrigger) !== canonical(desired.rotationTrigger);
  let record = null;
  let secret = { secret: stored.secret, secretKnown: stored.secretKnown };
  let version = stored.version;

  if (changed.length > 0) {
    const body: Record<string, unknown> = { expectedVersion: version };
    for (const field of changed) body[field] = desired[field] ?? null;
    try {
      record = await client.apiKeys.update(id, body as never);
    } catch (error) {
      throw await explain(id, "change", error, stored, connection);
    }
    version = record.version;
  }
  if (rotate) {
    try {
      const { secret: issued, ...rotated } = await client.apiKeys.rotate(id, { expectedVersion: version });
      record = rotated;
      secret = { secret: issued, secretKnown: true };
    } catch (error) {
      const failure = await explain(id, "rotate", error, { ...stored, version }, connection);
      if (!record) throw failure;
      // The PATCH landed but the rotation did not: say so, and leave the next run to find the new
      // version through refresh rather than record a half-applied update.
      throw new KeyOperationError(
        `key ${id}: the change of ${changed.join(", ")} was applied (now version ${version}), but the rotation failed: ` +
          `${failure.message} Run \`pulumi refresh\`, then \`pulumi up\` to rotate.`,
        { cause: failure },
      );
    }
  }
  if (!record) {
    // Only the connection input changed (same gateway and owner): nothing to send.
    const outs: StoredKey = { ...stored };
    delete outs.connection;
    if (desired.connection !== undefined) outs.connection = desired.connection;
    return { outs };
  }
  return { outs: keyState(record, connection, secret, desired) };
}

/** Revokes the key (irreversible). Already revoked or gone counts as done; another owner's credentials do not. */
export async function deleteKey(id: string, stored: StoredKey): Promise<void> {
  const connection = existingConnection(stored);
  try {
    await clientFor(connection).apiKeys.revoke(id, { expectedVersion: stored.version });
  } catch (error) {
    if (error instanceof ConflictError && error.code === "key_revoked") return;
    if (error instanceof NotFoundError) {
      const otherOwner = await isAnotherOwner(connection, stored.ownerId);
      if (otherOwner) throw wrongOwner(id, stored.ownerId, otherOwner, connection.baseUrl);
      return;
    }
    throw describeFailure(id, "revoke", error, stored.version);
  }
}

async function explain(id: string, action: string, error: unknown, stored: StoredKey, connection: { baseUrl: string; provisioningKey: string }) {
  if (error instanceof NotFoundError) {
    const otherOwner = await isAnotherOwner(connection, stored.ownerId);
    return otherOwner ? wrongOwner(id, stored.ownerId, otherOwner, connection.baseUrl) : goneOutside(id, connection.baseUrl);
  }
  return describeFailure(id, action, error, stored.version);
}
