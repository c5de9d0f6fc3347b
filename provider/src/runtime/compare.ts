import { ApiKey, canonicalJson, KEY_CHANGE_FIELDS, type CreateApiKeyRequest, type KeyChangeField, type UpdateApiKeyRequest } from "@gateway-keys/contract";
import type { DesiredKey, StoredKey } from "./shapes";

/** The fields a PATCH can change: the contract's list. */
export const PATCHABLE_FIELDS = KEY_CHANGE_FIELDS;
export type PatchableField = KeyChangeField;

/** Whether two values are the same JSON, key order aside; a missing value and `null` both mean "none". */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * A patchable field of a stored key as the contract reads a key record today: a state written by an
 * older provider (a spend policy without `resetPeriod`, no `labels`) reads with the defaults it had,
 * so an upgrade shows no change.
 */
export function storedValue(stored: StoredKey, field: PatchableField): unknown {
  const value = stored[field];
  const read = ApiKey.shape[field].safeParse(value);
  if (read.success) return read.data;
  // A policy the key has none of is left out of the state: it reads as the record's null.
  const none = value === undefined ? ApiKey.shape[field].safeParse(null) : undefined;
  return none?.success ? none.data : value;
}

/** The patchable fields whose declared value differs from the stored one. */
export function changedFields(stored: StoredKey, desired: DesiredKey): PatchableField[] {
  return PATCHABLE_FIELDS.filter((field) => !sameJson(storedValue(stored, field), desired[field]));
}

/**
 * A declared value as a request carries it: a lifetime cap's `resetPeriod: "never"` is left out,
 * as the gateway's default, so a gateway from before reset periods takes the request too.
 */
function requestValue(field: PatchableField, value: unknown): unknown {
  if (field !== "spendPolicy" || value === null || value === undefined) return value;
  const { resetPeriod, ...cap } = value as { resetPeriod?: string };
  return resetPeriod === "never" ? cap : value;
}

/** Fields whose empty value is the gateway's default: left out of a create, so a gateway from before them takes it. */
const EMPTY_IS_DEFAULT = new Set<PatchableField>(["labels", "budgetAlertThresholds"]);

/** The create request of a declared key: its name, state and each policy it sets (none left out, no empty labels). */
export function createRequest(desired: DesiredKey): CreateApiKeyRequest {
  const body: Record<string, unknown> = {};
  for (const field of PATCHABLE_FIELDS) {
    const value = desired[field];
    if (value === undefined || value === null || (EMPTY_IS_DEFAULT.has(field) && Object.keys(value).length === 0)) continue;
    body[field] = requestValue(field, value);
  }
  return body as CreateApiKeyRequest;
}

/** The PATCH that brings a key at `version` to `desired` in `fields` (a policy declared as none sent as null). */
export function changeRequest(version: number, fields: readonly PatchableField[], desired: DesiredKey): UpdateApiKeyRequest {
  const body: Record<string, unknown> = { expectedVersion: version };
  for (const field of fields) body[field] = requestValue(field, desired[field] ?? null);
  return body as UpdateApiKeyRequest;
}
