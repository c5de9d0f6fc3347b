import { fieldIssues } from "@gateway-keys/contract";
import type { z } from "zod";
import { ResponseValidationError } from "../core/errors";

/** JSON.parse that reports failure instead of throwing; error bodies may be HTML from a proxy. */
export function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Parses a 2xx body with the contract's schema. A body that is not JSON, or does not fit, becomes a
 * `ResponseValidationError` naming the field path. Zod's messages name the expected type, never the
 * received value, so a secret in the body cannot reach the error.
 */
export function parseAnswer<T>(schema: z.ZodType<T>, status: number, text: string, request: string): T {
  const json = tryJson(text);
  if (!json.ok) {
    throw new ResponseValidationError(status, [{ path: "(body)", message: "not JSON" }], request);
  }
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) throw new ResponseValidationError(status, fieldIssues(parsed.error), request);
  return parsed.data;
}
