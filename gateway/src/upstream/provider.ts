import { errors, type Dispatcher, type FormData, type Pool } from "undici";
import { performance } from "node:perf_hooks";
import { GatewayError } from "../errors";
import { refusalOf } from "./provider-errors";
import { DEFAULT_ANTHROPIC_VERSION, type ProviderWire, type UpstreamProvider } from "./upstream-provider";

export { DEFAULT_ANTHROPIC_VERSION, type ProviderWire, type UpstreamProvider } from "./upstream-provider";

/** The provider's answer, whose status was 2xx. */
export type UpstreamAnswer = Dispatcher.ResponseData;

/** Client headers a provider's wire defines, passed on (docs/api.md, "Upstream providers"); never the client's credentials. */
export const PASSED_HEADERS: Record<ProviderWire, readonly string[]> = {
  openai: ["openai-beta"],
  anthropic: ["anthropic-version", "anthropic-beta"],
};

/** The provider's credentials, and the client's wire headers that are passed on. */
export function providerHeaders(provider: UpstreamProvider, clientHeaders: Record<string, string | string[] | undefined> = {}): Record<string, string> {
  const headers: Record<string, string> =
    provider.wire === "openai" ? { authorization: `Bearer ${provider.apiKey}` } : { "x-api-key": provider.apiKey, "anthropic-version": DEFAULT_ANTHROPIC_VERSION };
  for (const name of PASSED_HEADERS[provider.wire]) {
    const value = clientHeaders[name];
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

/**
 * Sends one request to a provider and resolves with its 2xx answer. Anything else is thrown as a
 * gateway error (provider-errors.ts): the provider's refusal of the request itself in the
 * client's terms, or a failure of this route (timeout, reset, 429, 5xx, refused credentials).
 */
/** The request path of `path` under each base URL, worked out once per pair rather than per request. */
const requestPaths = new Map<string, string>();

function requestPath(baseUrl: string, path: string): string {
  const key = `${baseUrl}\n${path}`;
  let known = requestPaths.get(key);
  if (known === undefined) {
    const url = new URL(baseUrl.replace(/\/+$/, "") + path);
    known = url.pathname + url.search;
    requestPaths.set(key, known);
  }
  return known;
}

export async function sendToProvider(
  provider: UpstreamProvider,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer | FormData,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const started = performance.now();
  const observe = (outcome: Parameters<NonNullable<UpstreamProvider["observe"]>>[0]) => provider.observe?.(outcome, (performance.now() - started) / 1000);
  let answer: UpstreamAnswer;
  try {
    answer = await provider.pool.request({
      method: "POST",
      path: requestPath(provider.baseUrl, path),
      headers: typeof body === "string" ? { "content-type": "application/json", ...headers } : headers,
      body,
      signal,
      headersTimeout: provider.timeoutMs,
      bodyTimeout: provider.timeoutMs,
    });
  } catch (error) {
    const failure = upstreamFailure(provider, error);
    observe(failure.code === "upstream_timeout" ? "timeout" : "failed");
    throw failure;
  }
  observe(answer.statusCode >= 300 ? "error_status" : "ok");
  if (answer.statusCode >= 300) throw await refusalOf(provider, answer);
  return answer;
}

/** The JSON body of a provider's answer; an unreadable one is the provider's failure. */
export async function readJson<Body>(provider: UpstreamProvider, answer: UpstreamAnswer): Promise<Body> {
  try {
    return (await answer.body.json()) as Body;
  } catch (error) {
    throw upstreamFailure(provider, error);
  }
}

/** A failure reaching a provider or reading its answer, as a gateway error. */
export function upstreamFailure(provider: UpstreamProvider, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return new GatewayError("upstream_timeout", `The provider ${provider.name} did not answer within ${provider.timeoutMs} ms.`);
  }
  return new GatewayError("upstream_failed", `The connection to the provider ${provider.name} failed before its answer was complete.`);
}

/** Whether the next route may be tried: the failure was this route's, not the request's. */
export function isRouteFailure(error: unknown): boolean {
  return error instanceof GatewayError && (error.code === "upstream_failed" || error.code === "upstream_timeout" || error.code === "upstream_rate_limited");
}
