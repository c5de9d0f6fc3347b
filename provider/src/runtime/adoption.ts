import type * as pulumi from "@pulumi/pulumi";
import { canonicalJson, type ApiKey } from "@gateway-keys/contract";
import { NotFoundError } from "@gateway-keys/sdk";
import { changedFields } from "./compare";
import { callOptions, type Connection } from "./connection";
import type { ProviderContext } from "./context";
import { keyState } from "./key-state";
import { KeyOperationError } from "./errors";
import { describeFailure } from "./messages";
import type { DesiredKey, StoredKey } from "./shapes";

/**
 * Why the live key cannot be adopted as the program declares it, or undefined when it can. As with
 * Pulumi's own import, the key must already be what the program says: name, state and policies.
 */
function adoptionProblem(keyId: string, record: ApiKey, desired: DesiredKey, connection: Connection): string | undefined {
  if (record.state === "revoked") return `cannot adopt key ${keyId}: it is revoked, and a revoked key can never be used again`;
  const state = keyState(record, connection, { secret: undefined, secretKnown: false }, {});
  const differences = changedFields(state, desired).map(
    (field) => `${field}: the key has ${canonicalJson(state[field])}, the program declares ${canonicalJson(desired[field])}`,
  );
  if (differences.length === 0) return undefined;
  return (
    `cannot adopt key ${keyId}: it differs from the program (${differences.join("; ")}). ` +
    "Make the program match the key, adopt it, then change it in a later update. Nothing was changed."
  );
}

const notFound = (keyId: string, baseUrl: string) =>
  `cannot adopt key ${keyId}: no such key for this provisioning key's owner on ${baseUrl}`;

/**
 * At `check` (preview and update alike): reads the key to adopt and says what stops the adoption,
 * so the plan fails rather than the update. A gateway that cannot be read now leaves the verdict
 * to `create`, which reads the key again in any case.
 */
export async function reviewAdoption(
  context: ProviderContext,
  keyId: string,
  desired: DesiredKey,
  connection: Connection,
): Promise<string | undefined> {
  let record: ApiKey;
  try {
    record = await context.connections.client(connection).apiKeys.get(keyId, callOptions(connection));
  } catch (error) {
    return error instanceof NotFoundError && error.code === "key_not_found" ? notFound(keyId, connection.baseUrl) : undefined;
  }
  return adoptionProblem(keyId, record, desired, connection);
}

/** Takes over an existing key instead of creating one: one read, and no change at all. */
export async function adoptKey(
  context: ProviderContext,
  keyId: string,
  desired: DesiredKey,
  connection: Connection,
): Promise<pulumi.dynamic.CreateResult<StoredKey>> {
  let record: ApiKey;
  try {
    record = await context.connections.client(connection).apiKeys.get(keyId, callOptions(connection));
  } catch (error) {
    if (error instanceof NotFoundError && error.code === "key_not_found") throw new KeyOperationError(notFound(keyId, connection.baseUrl));
    throw describeFailure(keyId, "adopt", error, 0, connection);
  }
  const problem = adoptionProblem(keyId, record, desired, connection);
  if (problem) throw new KeyOperationError(problem);
  return { id: record.keyId, outs: keyState(record, connection, { secret: undefined, secretKnown: false }, desired) };
}
