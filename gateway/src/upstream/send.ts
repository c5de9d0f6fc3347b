import { errors, type Dispatcher } from "undici";
import { performance } from "node:perf_hooks";
import { GatewayError } from "../errors";
import { refusalOf } from "./provider-errors";
import type { ServerSentEvent } from "./sse-events";
import type { FormData } from "undici";
import type { HttpRequest, ProviderCall, UpstreamProvider } from "./upstream-provider";

export { DEFAULT_ANTHROPIC_VERSION, MultipartForm, type ProviderCall, type ProviderExchangeName, type ProviderWire, type UpstreamProvider } from "./upstream-provider";

/** The provider's answer, whose status was 2xx. */
export type UpstreamAnswer = Dispatcher.ResponseData;

/**
 * Sends one call to a provider — where its kind says, authenticated as its kind requires — and
 * resolves with its 2xx answer. Anything else is thrown as a gateway error (provider-errors.ts):
 * the provider's refusal of the request itself in the client's terms, or a failure of this route
 * (timeout, reset, 429, 5xx, refused credentials).
 */
export async function sendToProvider(provider: UpstreamProvider, call: ProviderCall, signal: AbortSignal): Promise<UpstreamAnswer> {
  const started = performance.now();
  const observe = (outcome: Parameters<NonNullable<UpstreamProvider["observe"]>>[0]) => provider.observe?.(outcome, (performance.now() - started) / 1000);
  let answer: UpstreamAnswer;
  try {
    const { path, headers, body } = await provider.endpoint.prepare(call);
    // After the kind prepared (and, for Bedrock, signed) the request: trace headers are never signed, as AWS allows.
    const sent = call.traceHeaders === undefined ? headers : { ...headers, ...call.traceHeaders };
    answer = await provider.pool.request({ method: "POST", path, headers: sent, body: asBytes(body), signal, headersTimeout: provider.timeoutMs, bodyTimeout: provider.timeoutMs });
  } catch (error) {
    const failure = upstreamFailure(provider, error);
    observe(failure.code === "upstream_timeout" ? "timeout" : "failed");
    throw failure;
  }
  observe(answer.statusCode >= 300 ? "error_status" : "ok");
  if (answer.statusCode === 401 || answer.statusCode === 403) provider.endpoint.credentialsRefused?.();
  if (answer.statusCode >= 300) throw await refusalOf(provider, answer);
  return answer;
}

/**
 * A request body as undici sends it without a copy. Given a string, undici keeps it (in its
 * request handler) and a Buffer of it (in its request) until the answer ends: an open stream
 * would hold its whole request twice. As one Buffer it is held once; the string is dropped here.
 */
function asBytes(body: HttpRequest["body"]): Buffer | FormData {
  return typeof body === "string" ? Buffer.from(body) : body;
}

/** The events of a streamed answer, decoded from the provider kind's framing. */
export function providerEvents(provider: UpstreamProvider, answer: UpstreamAnswer, call: ProviderCall): AsyncIterable<ServerSentEvent> {
  return provider.endpoint.events(answer.body, call);
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
