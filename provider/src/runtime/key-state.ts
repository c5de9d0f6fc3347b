import type { ApiKey } from "@gateway-keys/contract";
import type { ApiKeyState } from "../inputs";
import { credentialHint, type Connection } from "./connection";
import type { DesiredKey } from "./desired";

/** What a key's outputs say about its secret. */
export interface SecretKnowledge {
  secret: string | undefined;
  secretKnown: boolean;
}

/** The outputs stored for a key: the gateway's record, where it lives, and the inputs it carries. */
export function keyState(
  record: ApiKey,
  connection: Connection,
  secret: SecretKnowledge,
  carried: Pick<DesiredKey, "rotationTrigger" | "connection">,
): ApiKeyState & { connection?: DesiredKey["connection"] } {
  const state: ApiKeyState & { connection?: DesiredKey["connection"] } = {
    keyId: record.keyId,
    version: record.version,
    secret: undefined,
    secretKnown: secret.secretKnown,
    hint: record.hint,
    state: record.state,
    ownerId: record.ownerId,
    baseUrl: connection.baseUrl,
    provisioningKeyHint: credentialHint(connection),
    name: record.name,
    loggingPolicy: record.loggingPolicy,
    modelPolicy: { mode: record.modelPolicy.mode as "all" | "allowList", modelIds: record.modelPolicy.modelIds },
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    rotatedAt: record.rotatedAt,
  };
  // The engine's wire format has no `undefined`: an unknown secret is left out, not set to undefined.
  if (secret.secret === undefined) delete state.secret;
  else state.secret = secret.secret;
  if (record.spendPolicy) state.spendPolicy = { limitUnits: record.spendPolicy.limitUnits, currency: "unit" };
  if (carried.rotationTrigger !== undefined) state.rotationTrigger = carried.rotationTrigger;
  // Kept (as a secret output) so refresh and delete reach the same gateway and owner as create did.
  if (carried.connection !== undefined) state.connection = carried.connection;
  return state;
}

/** The inputs a live key implies, so a change made outside Pulumi shows up in the next preview. */
export function inputsOf(state: ReturnType<typeof keyState>): DesiredKey {
  const inputs: DesiredKey = {
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
