import { ApiKey, canonicalJson, KEY_CHANGE_FIELDS, type KeyChangeField } from "@gateway-keys/contract";
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
  const read = ApiKey.shape[field].safeParse(stored[field] ?? null);
  return read.success ? read.data : stored[field];
}

/** The patchable fields whose declared value differs from the stored one. */
export function changedFields(stored: StoredKey, desired: DesiredKey): PatchableField[] {
  return PATCHABLE_FIELDS.filter((field) => !sameJson(storedValue(stored, field), desired[field]));
}
