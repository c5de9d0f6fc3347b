import { canonicalJson } from "@gateway-keys/contract";
import type { DesiredKey, StoredKey } from "./shapes";

/** The fields a PATCH can change. */
export const PATCHABLE_FIELDS = ["name", "state", "spendPolicy", "loggingPolicy", "modelPolicy"] as const;
export type PatchableField = (typeof PATCHABLE_FIELDS)[number];

/** Whether two values are the same JSON, key order aside; a missing value and `null` both mean "none". */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The patchable fields whose declared value differs from the stored one. */
export function changedFields(stored: StoredKey, desired: DesiredKey): PatchableField[] {
  return PATCHABLE_FIELDS.filter((field) => !sameJson(stored[field], desired[field]));
}
