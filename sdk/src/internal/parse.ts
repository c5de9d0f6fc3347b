import { fieldIssues } from "@gateway-keys/contract";
import type { z } from "zod";

/** JSON.parse that reports failure instead of throwing; error bodies may be HTML from a proxy. */
export function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Parses a 2xx body with the contract's schema: the value, or the issues naming each field path that
 * does not fit (the client throws them as a `ResponseValidationError`). Zod's messages name the
 * expected type, never the received value, so a secret in the body cannot reach the error.
 */
export function parseAnswer<T>(schema: z.ZodType<T>, text: string): { ok: true; value: T } | { ok: false; issues: { path: string; message: string }[] } {
  const json = tryJson(text);
  if (!json.ok) return { ok: false, issues: [{ path: "(body)", message: "not JSON" }] };
  const parsed = schema.safeParse(json.value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: fieldIssues(parsed.error) };
}
