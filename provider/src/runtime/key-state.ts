import type { ApiKey } from "@gateway-keys/contract";
import { credentialHint, type Connection } from "./connection";
import { CARRIED_INPUTS, type CarriedInputs, type ReadInputs, type StoredKey } from "./shapes";

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
  carried: CarriedInputs,
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
    previousSecretExpiresAt: record.previousSecretExpiresAt,
  };
  // The engine's wire format has no `undefined`: what is unknown is left out.
  if (secret.secret !== undefined) state.secret = secret.secret;
  if (record.spendPolicy) state.spendPolicy = record.spendPolicy;
  return withCarried(state, carried);
}

/** `state` with the carried inputs replaced by `carried`'s (those left out removed). */
export function withCarried(state: StoredKey, carried: Partial<CarriedInputs>): StoredKey {
  const next: StoredKey = { ...state };
  for (const field of CARRIED_INPUTS) {
    delete next[field];
    if (carried[field] !== undefined) Object.assign(next, { [field]: carried[field] });
  }
  return next;
}

/** The inputs a stored key carries. */
export function carriedOf(state: StoredKey): Partial<CarriedInputs> {
  const carried: Partial<CarriedInputs> = {};
  for (const field of CARRIED_INPUTS) if (state[field] !== undefined) Object.assign(carried, { [field]: state[field] });
  return carried;
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
  return { ...inputs, ...carriedOf(state) };
}
