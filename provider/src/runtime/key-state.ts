import type { ApiKey } from "@gateway-keys/contract";
import { credentialHint, type Connection } from "./connection";
import type { DesiredKey, ReadInputs, StoredKey } from "./shapes";

/** What the stack knows of a key's secret. */
export interface SecretKnowledge {
  secret: string | undefined;
  secretKnown: boolean;
}

/**
 * The outputs stored for a key: the gateway's record (as the contract reads it, amounts already in
 * their one spelling), where it lives, and the inputs it carries.
 */
export function keyState(
  record: ApiKey,
  connection: Connection,
  secret: SecretKnowledge,
  carried: Pick<DesiredKey, "rotationTrigger" | "connection">,
): StoredKey {
  const state: StoredKey = {
    keyId: record.keyId,
    version: record.version,
    secretKnown: secret.secretKnown,
    hint: record.hint,
    state: record.state,
    ownerId: record.ownerId,
    baseUrl: connection.baseUrl,
    provisioningKeyHint: credentialHint(connection),
    name: record.name,
    loggingPolicy: record.loggingPolicy,
    modelPolicy: record.modelPolicy,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    rotatedAt: record.rotatedAt,
  };
  // The engine's wire format has no `undefined`: what is unknown is left out.
  if (secret.secret !== undefined) state.secret = secret.secret;
  if (record.spendPolicy) state.spendPolicy = record.spendPolicy;
  if (carried.rotationTrigger !== undefined) state.rotationTrigger = carried.rotationTrigger;
  if (carried.connection !== undefined) state.connection = carried.connection;
  return state;
}

/** The inputs a live key implies, so a change made outside Pulumi shows up in the next preview. */
export function inputsOf(state: StoredKey): ReadInputs {
  const inputs: ReadInputs = {
    name: state.name,
    state: state.state === "disabled" ? "disabled" : "active",
    loggingPolicy: state.loggingPolicy,
    modelPolicy: state.modelPolicy,
  };
  if (state.spendPolicy) inputs.spendPolicy = state.spendPolicy;
  if (state.rotationTrigger !== undefined) inputs.rotationTrigger = state.rotationTrigger;
  if (state.connection !== undefined) inputs.connection = state.connection;
  return inputs;
}
