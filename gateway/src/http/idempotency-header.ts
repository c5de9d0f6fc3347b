import type { onRequestAsyncHookHandler } from "fastify";
import { IDEMPOTENCY_KEY_PATTERN } from "@gateway-keys/contract";
import { GatewayError } from "../errors";

/** The header's name as messages and `param` show it. */
export const IDEMPOTENCY_HEADER_NAME = "Idempotency-Key";

/**
 * Account mutations: the `Idempotency-Key` header is required and well-formed. Runs before body
 * validation, so a missing header is reported first.
 */
export function requireIdempotencyKey(): onRequestAsyncHookHandler {
  return async (request) => {
    const value = request.headers["idempotency-key"];
    if (value === undefined || value === "") {
      throw new GatewayError(
        "missing_idempotency_key",
        "Account mutations require an Idempotency-Key header: a unique value per logical operation, reused only to retry it.",
        { param: IDEMPOTENCY_HEADER_NAME },
      );
    }
    if (typeof value !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
      throw new GatewayError("validation_failed", "Idempotency-Key must be 1 to 255 visible ASCII characters, sent once.", {
        param: IDEMPOTENCY_HEADER_NAME,
      });
    }
    request.idempotencyKey = value;
  };
}
