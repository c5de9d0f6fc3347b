import type { FastifyServerOptions } from "fastify";
import type { LoggerSetting } from "./app";

/**
 * Paths pino censors in every log line. Fastify's request serializer leaves headers out already;
 * this list is the second lock, for anything that logs a request, a reply or a key object whole.
 */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  'req.headers["idempotency-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["idempotency-key"]',
  "secret",
  "*.secret",
  "provisioningKey",
  "*.provisioningKey",
];

/** Fastify logger options for a {@link LoggerSetting}. */
export function loggerOptions(setting: LoggerSetting): FastifyServerOptions["logger"] {
  if (setting === false) return false;
  const { level = "info", stream } = setting === true ? {} : setting;
  return { level, ...(stream ? { stream } : {}), redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}
