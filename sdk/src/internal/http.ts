import { tryJson } from "./parse";

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The `error.code` of an error envelope, without validating the rest (the retry decision needs only this). */
export function envelopeCode(text: string): string | undefined {
  const json = tryJson(text);
  if (!json.ok || typeof json.value !== "object" || json.value === null) return undefined;
  const error = (json.value as { error?: { code?: unknown } }).error;
  return typeof error?.code === "string" ? error.code : undefined;
}

/** A header's first value (undici gives repeated headers as arrays). */
export function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `?a=1&b=2`, leaving out undefined values; empty when nothing is left. */
export function queryString(query: Record<string, string | number | readonly string[] | undefined> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    // A list (label selectors) repeats its parameter, once per value.
    if (Array.isArray(value)) for (const item of value) params.append(name, item);
    else if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * What is wrong with an argument, said to the caller (the client throws it as an
 * `InvalidArgumentError`), or undefined when nothing is.
 */
export type ArgumentProblem = string | undefined;

/** Checks `baseUrl` once, in the constructor, so a typo fails there rather than on the first call. */
export function baseUrlProblem(baseUrl: string): ArgumentProblem {
  if (!URL.canParse(baseUrl)) return "baseUrl must be an absolute http(s) URL, e.g. http://127.0.0.1:8787";
  const { protocol } = new URL(baseUrl);
  return protocol === "http:" || protocol === "https:" ? undefined : "baseUrl must use http: or https:";
}

/** A count option (retries, milliseconds) must be a non-negative integer when given. */
export function countProblem(name: string, value: number | undefined): ArgumentProblem {
  return value === undefined || (Number.isInteger(value) && value >= 0) ? undefined : `${name} must be a non-negative integer`;
}

/** undici refused the request before sending it (e.g. a header value with a newline): retrying cannot help. */
export function isUndiciArgumentError(error: unknown): boolean {
  return codeOf(error) === "UND_ERR_INVALID_ARG";
}

/** `ECONNRESET`, `UND_ERR_SOCKET`, … or the error's name: short enough for a log line. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.name : "unknown";
}

/** `CODE: message: INNER_CODE`, for connection error messages (redacted by the error constructor). */
export function messageOf(error: unknown): string {
  const inner = error instanceof Error && error.cause instanceof Error ? `: ${codeOf(error.cause)}` : "";
  return error instanceof Error ? `${codeOf(error)}: ${error.message}${inner}` : String(error);
}

/**
 * A key read from a file or an environment variable often ends in a newline; sent as is it would be
 * refused by undici (with a message about the header) or, worse, split the header. Caught here with
 * a message that says where to look, and without the key in it.
 */
export function credentialProblem(credential: string): ArgumentProblem {
  return credential.length === 0 || /[\u0000-\u001f\u007f\s]/.test(credential)
    ? "a credential contains whitespace or a control character (a trailing newline from a file or variable?): trim it"
    : undefined;
}
