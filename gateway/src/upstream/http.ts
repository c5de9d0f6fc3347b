import { errors, type Dispatcher, type Pool } from "undici";
import { performance } from "node:perf_hooks";
import { GatewayError } from "../errors";

/** One provider as the engines reach it: a pooled connection and its credentials. */
export interface UpstreamProvider {
  name: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  pool: Pool;
  /** Hears how long each attempt took to its response headers (or its failure); the metrics listen. */
  observe?: (outcome: "ok" | "error_status" | "timeout" | "failed", seconds: number) => void;
}

/** The upstream's answer, whose status was 2xx. */
export type UpstreamAnswer = Dispatcher.ResponseData;

/**
 * Sends one JSON request to a provider. Non-2xx answers, timeouts and resets become gateway
 * errors that name the provider and never quote its body (which may echo a credential).
 */
export async function postJson(provider: UpstreamProvider, path: string, headers: Record<string, string>, body: unknown, signal: AbortSignal): Promise<UpstreamAnswer> {
  const url = new URL(provider.baseUrl.replace(/\/+$/, "") + path);
  let answer: UpstreamAnswer;
  const started = performance.now();
  const observe = (outcome: Parameters<NonNullable<UpstreamProvider["observe"]>>[0]) => provider.observe?.(outcome, (performance.now() - started) / 1000);
  try {
    answer = await provider.pool.request({
      method: "POST",
      path: url.pathname + url.search,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
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
  if (answer.statusCode >= 300) {
    await answer.body.dump();
    throw new GatewayError("upstream_failed", `The provider ${provider.name} answered ${answer.statusCode}; the request was not completed.`);
  }
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

/** A failure reaching a provider, as a gateway error. */
export function upstreamFailure(provider: UpstreamProvider, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return new GatewayError("upstream_timeout", `The provider ${provider.name} did not answer within ${provider.timeoutMs} ms.`);
  }
  return new GatewayError("upstream_failed", `The connection to the provider ${provider.name} failed before its answer was complete.`);
}
