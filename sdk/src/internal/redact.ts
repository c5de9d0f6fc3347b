/**
 * Keeps credentials out of everything the SDK produces: error messages, log lines and `cause`
 * objects. Two nets, because either alone can miss: the exact credentials this client holds, and
 * anything shaped like one of the gateway's keys (`gwk_…`, `gwp_…`) or a bearer token.
 */

const KEY_LIKE = /\b(gwk_|gwp_)[0-9A-Za-z]{4,}/g;
const BEARER = /\b(Bearer)\s+[^\s,;"']+/gi;
/** Shorter strings are too likely to occur in ordinary text to be worth replacing. */
const MIN_SECRET_LENGTH = 8;

export const REDACTED = "[redacted]";

/** Replaces every known secret and anything that looks like a key or a bearer token. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out.replace(KEY_LIKE, `$1${REDACTED}`).replace(BEARER, `$1 ${REDACTED}`);
}

/**
 * A stand-in for an error thrown below the SDK (undici, node:net). The original may carry the
 * request options, headers or socket, so only its name, code and a redacted message and stack
 * survive; nothing else is reachable through `JSON.stringify` or `util.inspect`. One level of the
 * chain is kept (undici wraps ECONNRESET in a SocketError), scrubbed the same way.
 */
export function safeCause(error: unknown, secrets: readonly (string | undefined)[] = []): Error {
  const copy = scrubbed(error, secrets);
  const inner = error instanceof Error ? error.cause : undefined;
  if (inner !== undefined && inner !== error) hide(copy, "cause", scrubbed(inner, secrets));
  return copy;
}

function scrubbed(error: unknown, secrets: readonly (string | undefined)[]): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redact(source.message, secrets));
  hide(copy, "name", source.name);
  const code = (source as { code?: unknown }).code;
  if (typeof code === "string") Object.assign(copy, { code });
  copy.stack = redact(source.stack ?? `${source.name}: ${source.message}`, secrets);
  return copy;
}

/** Defines a property that `JSON.stringify` and `Object.keys` skip, as `Error` itself does for `message`. */
export function hide(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}
