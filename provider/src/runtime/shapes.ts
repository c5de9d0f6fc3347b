import { CreateApiKeyRequest, KeyId, type ApiKey, type SettableKeyState } from "@gateway-keys/contract";
import { z } from "zod";
import { ConnectionInput } from "./connection";

/** The engine's placeholder for a value not known until apply (an output of another resource). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether a value holds, anywhere inside, a value not known until apply. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * The inputs of an ApiKey: the contract's create request (name, state, policies, defaults and all)
 * plus the provider's own fields. Top-level properties it does not name, such as the engine's
 * `__provider`, are dropped; inside, the contract's schemas stay strict.
 */
export const ApiKeyInputs = z.object({
  ...CreateApiKeyRequest.shape,
  /** Any value; changing it rotates the secret. */
  rotationTrigger: z.unknown().optional(),
  connection: ConnectionInput.optional(),
  /** An existing key to take over instead of creating one. */
  adoptKeyId: KeyId.optional(),
});

/** A key's inputs after `check`: what the program declares, defaults filled, amounts canonical. */
export type DesiredKey = z.output<typeof ApiKeyInputs>;

/**
 * What `check` hands on when a value is not known until apply (only during a preview): the program's
 * inputs, partly unchecked. `diff` tells it from a {@link DesiredKey} with {@link isSettled}.
 */
export type PendingInputs = Readonly<Record<string, unknown>>;

/** Inputs as `check` returns them. */
export type CheckedInputs = DesiredKey | PendingInputs;

/** Whether `check` validated every input, none of them waiting for apply. */
export function isSettled(inputs: CheckedInputs): inputs is DesiredKey {
  return !containsUnknown(inputs);
}

/** The fields of the gateway's record that the stack keeps, exactly as read. */
type RecordFields = "keyId" | "version" | "hint" | "state" | "ownerId" | "name" | "loggingPolicy" | "modelPolicy" | "createdAt" | "updatedAt" | "rotatedAt";

/** A key's outputs, as stored in the stack's state (the secret encrypted by the engine). */
export interface StoredKey extends Pick<ApiKey, RecordFields> {
  /** The spending cap; absent when the key has none (the engine's state holds no `undefined`). */
  spendPolicy?: NonNullable<ApiKey["spendPolicy"]>;
  /** Absent when the stack does not know the secret (adopted, or rotated outside the stack). */
  secret?: string;
  secretKnown: boolean;
  /** The gateway the key lives on. */
  baseUrl: string;
  /** Hint of the provisioning key the key was last managed with. */
  provisioningKeyHint: string;
  rotationTrigger?: unknown;
  /** The key's own `connection` input, kept (as a secret output) so refresh and delete reach it. */
  connection?: ConnectionInput;
}

/** The inputs a live key implies (what `read` reports), so a change made outside Pulumi shows in the next preview. */
export type ReadInputs = Pick<StoredKey, "name" | "spendPolicy" | "loggingPolicy" | "modelPolicy" | "rotationTrigger" | "connection"> & {
  state: SettableKeyState;
};
