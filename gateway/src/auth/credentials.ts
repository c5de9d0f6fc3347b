import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../errors";

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

function invalid(message: string): GatewayError {
  return new GatewayError("invalid_credentials", message);
}

/**
 * The token of `Authorization: Bearer <token>`, or `undefined` when the header is absent.
 * @throws 401 when the header is present but is not a bearer token.
 */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER.exec(header);
  if (!match) throw invalid("The Authorization header must read `Bearer <key>`.");
  return match[1];
}

/**
 * The key a model request presents: `Authorization: Bearer` (the default) or `x-api-key`.
 * When both are sent they must carry the same key (the seed's rule); our decision is that a
 * mismatch is a 401, because the gateway cannot tell which credential the caller meant.
 * @throws 401 on a malformed header or two different keys.
 */
export function modelCredential(headers: IncomingHttpHeaders): string | undefined {
  const fromBearer = bearerToken(headers);
  const rawApiKey = headers["x-api-key"];
  if (Array.isArray(rawApiKey)) throw invalid("Send the x-api-key header once.");
  const fromApiKeyHeader = rawApiKey?.trim() || undefined;
  if (rawApiKey !== undefined && fromApiKeyHeader === undefined) throw invalid("The x-api-key header is empty.");
  if (fromBearer !== undefined && fromApiKeyHeader !== undefined && fromBearer !== fromApiKeyHeader) {
    throw invalid("Authorization and x-api-key carry different keys; send one key, in Authorization: Bearer by default.");
  }
  return fromBearer ?? fromApiKeyHeader;
}
