import type { KeyState } from "@gateway-keys/contract";

/** The engine's placeholder for a value not known until apply (an output of another resource). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether a value holds, anywhere inside, a value not known until apply. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** The `connection` input: which gateway, and which owner's provisioning key. */
export interface ConnectionInput {
  baseUrl?: string;
  provisioningKey?: string;
}

/** Policies as the provider compares and stores them: defaults filled, amounts in canonical form. */
export interface KeyPolicies {
  spendPolicy?: { limitUnits: string; currency: "unit" };
  loggingPolicy: { storeRequest: boolean; storeResponse: boolean; retentionDays: number };
  modelPolicy: { mode: "all" | "allowList"; modelIds: string[] };
}

/** A key's inputs after `check`: what the program declares. */
export interface DesiredKey extends KeyPolicies {
  name: string;
  state: "active" | "disabled";
  rotationTrigger?: unknown;
  connection?: ConnectionInput;
  /** An existing key to take over instead of creating one. */
  adoptKeyId?: string;
}

/** A key's outputs, as stored in the stack's state (the secret encrypted by the engine). */
export interface StoredKey extends KeyPolicies {
  keyId: string;
  version: number;
  /** Absent when the stack does not know the secret (adopted, or rotated outside the stack). */
  secret?: string;
  secretKnown: boolean;
  hint: string;
  state: KeyState;
  ownerId: string;
  baseUrl: string;
  /** Hint of the provisioning key the key was last managed with. */
  provisioningKeyHint: string;
  name: string;
  rotationTrigger?: unknown;
  /** The key's own `connection` input, kept (as a secret output) so refresh and delete reach it. */
  connection?: ConnectionInput;
  createdAt: string;
  updatedAt: string;
  rotatedAt: string | null;
}
