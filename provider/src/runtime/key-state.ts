import { KEY_CHANGE_FIELDS, NULLABLE_POLICIES, type ApiKey } from "@gateway-keys/contract";
import { storedValue } from "./compare";
import { credentialHint, type Connection } from "./connection";
import { durationText } from "./time";
import { CARRIED_INPUTS, DERIVED_FIELDS, RECORD_FIELDS, type CarriedInputs, type ReadInputs, type StoredKey } from "./shapes";

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
  const kept: Record<string, unknown> = {
    secretKnown: secret.secretKnown,
    baseUrl: connection.baseUrl,
    provisioningKeyHint: credentialHint(connection),
  };
  for (const field of RECORD_FIELDS) {
    // A policy the key has none of is left out: the engine's wire format has no `undefined`.
    if (record[field] === null && (NULLABLE_POLICIES as readonly string[]).includes(field)) continue;
    kept[field] = record[field];
  }
  // What is unknown is left out too.
  if (secret.secret !== undefined) kept.secret = secret.secret;
  const state = kept as unknown as StoredKey;
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
  const inputs: Record<string, unknown> = {};
  for (const field of KEY_CHANGE_FIELDS) {
    // Declared as the provider's durations: `expiryWarning` below, `rotateAfter` carried.
    if ((DERIVED_FIELDS as readonly string[]).includes(field)) continue;
    const value = storedValue(state, field);
    // A policy the key has none of is no input; a revoked key is declared as it was, active.
    if (value !== null) inputs[field] = field === "state" && value !== "disabled" ? "active" : value;
  }
  const carried = carriedOf(state);
  // A warning set outside the stack reads as the duration a program would write.
  if (state.expiryWarningSeconds !== undefined) carried.expiryWarning = durationText(state.expiryWarningSeconds);
  else delete carried.expiryWarning;
  return { ...(inputs as ReadInputs), ...carried };
}
