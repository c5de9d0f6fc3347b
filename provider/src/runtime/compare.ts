import type { DesiredKey, StoredKey } from "./shapes";

/** The fields a PATCH can change. */
export const PATCHABLE_FIELDS = ["name", "state", "spendPolicy", "loggingPolicy", "modelPolicy"] as const;
export type PatchableField = (typeof PATCHABLE_FIELDS)[number];

/** JSON with object keys in code-unit order, so key order never shows as a change. */
export function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The patchable fields whose declared value differs from the stored one. */
export function changedFields(stored: StoredKey, desired: DesiredKey): PatchableField[] {
  return PATCHABLE_FIELDS.filter((field) => canonical(stored[field]) !== canonical(desired[field]));
}

/** Whether the declared rotation trigger differs from the stored one (adding or removing it counts). */
export function triggerChanged(stored: StoredKey, desired: DesiredKey): boolean {
  return canonical(stored.rotationTrigger) !== canonical(desired.rotationTrigger);
}
