import type { FastifyRequest, FastifyServerOptions } from "fastify";
import type { DestinationStream, LevelWithSilent } from "pino";

/** Logging of an app: off, on at `info`, or a level and where lines go. Secrets are always redacted. */
export type LoggerSetting = boolean | { level?: LevelWithSilent; stream?: DestinationStream };

/**
 * Paths pino censors in every log line. Our request serializer leaves headers out already; this
 * list is the second lock, for anything that logs a request, a reply or a key object whole.
 */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  'req.headers["idempotency-key"]',
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "headers.authorization",
  "headers.cookie",
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers["idempotency-key"]',
  "secret",
  "*.secret",
  "provisioningKey",
  "*.provisioningKey",
];

const REDACTED = "[redacted]";
/** Ids the gateway issues in paths (`key_…`, `team_…`, `wh_…`): safe to log, and what an operator searches for. */
const ISSUED_ID = /^(key|log|pk|resp|team|wh)_[A-Za-z0-9]{1,60}$/;
/** Path segments of our own routes (`v1`, `api-keys`): words, never a credential (those hold `_`). */
const ROUTE_WORD = /^[A-Za-z0-9-]{1,32}$/;
const QUERY_NAME = /^[A-Za-z0-9_.-]{1,32}$/;
const SMALL_NUMBER = /^\d{1,6}$/;

/**
 * The request's path as it may be logged: a client can paste a secret anywhere in a URL (a key
 * in place of a key id, a token in a query), so only what cannot be one is kept. A matched route
 * logs its pattern with the parameters that are ids we issued; anything else is redacted.
 */
export function loggableUrl(request: FastifyRequest): string {
  const [rawPath = "", rawQuery] = request.url.split("?", 2);
  const pattern = request.routeOptions?.url;
  const params = (request.params ?? {}) as Record<string, unknown>;
  const path = pattern
    ? pattern.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
        const value = params[name];
        return typeof value === "string" && ISSUED_ID.test(value) ? value : REDACTED;
      })
    : rawPath
        .split("/")
        .map((segment) => (segment === "" || ROUTE_WORD.test(segment) ? segment : REDACTED))
        .join("/");
  if (rawQuery === undefined) return path;
  const query = rawQuery
    .split("&")
    .map((pair) => {
      const [name = "", value] = pair.split("=", 2);
      const shownName = QUERY_NAME.test(name) ? name : REDACTED;
      return value === undefined ? shownName : `${shownName}=${SMALL_NUMBER.test(value) ? value : REDACTED}`;
    })
    .join("&");
  return `${path}?${query}`;
}

/**
 * A client's address as the logs show it: IPv4 without its last byte, IPv6 with at most its first
 * three groups — enough to tell networks apart, not to name a client. Full addresses are kept only
 * where their owner reads them: among a secret's clients on the key record (extension `secret_use`).
 */
export function maskedAddress(address: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}$/i.exec(address);
  if (v4) return `${v4[1]}.x`;
  if (address.includes(":")) return `${address.split("::")[0]!.split(":").slice(0, 3).join(":")}::x`;
  return "x";
}

/** Fastify logger options for a {@link LoggerSetting}. */
export function loggerOptions(setting: LoggerSetting): FastifyServerOptions["logger"] {
  if (setting === false) return false;
  const { level = "info", stream } = setting === true ? {} : setting;
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    serializers: {
      // Replaces Fastify's, which logs the raw URL.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggableUrl(request),
        route: request.routeOptions?.url,
        remoteAddress: maskedAddress(request.ip),
      }),
    },
  };
}
