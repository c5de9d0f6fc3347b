import type { Dispatcher } from "undici";
import { GatewayError } from "../errors";
import type { UpstreamProvider } from "./upstream-provider";

/** The most of a provider's error body the gateway reads: enough for any message, bounded. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** The statuses with which a provider refuses the request itself: the client's to fix, passed on. */
const REQUEST_REFUSALS = new Set([400, 404, 409, 413, 415, 422]);

interface ProviderErrorBody {
  message?: string;
  type?: string;
  code?: string;
  param?: string;
}

/**
 * The error object of an OpenAI (`{ error: { message, type, code, param } }`), Anthropic
 * (`{ type: "error", error: { type, message } }`), Google (`{ error: { code: 400, message, status:
 * "INVALID_ARGUMENT" } }`: the status is the code a client can act on) or AWS (`{ message }`) body.
 */
function errorFields(text: string): ProviderErrorBody {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    const error = parsed.error;
    if (error && typeof error === "object") {
      const fields = error as Record<string, unknown>;
      const pick = (name: string) => (typeof fields[name] === "string" ? (fields[name] as string) : undefined);
      return { message: pick("message"), type: pick("type"), code: pick("code") ?? pick("status"), param: pick("param") };
    }
    if (typeof error === "string") return { message: error };
    // AWS's JSON errors (Bedrock): `{ "message": … }` (or `Message`) at the top.
    const aws = (parsed as { message?: unknown; Message?: unknown }).message ?? (parsed as { Message?: unknown }).Message;
    if (typeof aws === "string") return { message: aws };
  } catch {
    // Not JSON: a proxy's page, say. Its text is not passed on.
  }
  return {};
}

/** A provider's credentials never reach a client, even when the provider quotes them. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) if (secret.length >= 8) text = text.split(secret).join("[redacted]");
  return text;
}

async function bodyText(answer: Dispatcher.ResponseData): Promise<string> {
  let text = "";
  try {
    for await (const chunk of answer.body) {
      text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
      if (text.length > ERROR_BODY_LIMIT) {
        await answer.body.dump();
        break;
      }
    }
  } catch {
    // A body cut short still says what it said.
  }
  return text.slice(0, ERROR_BODY_LIMIT);
}

/**
 * A provider's non-2xx answer, as the error the client gets or the route failure that lets the
 * next route be tried (docs/operators/upstream.md#upstream-providers):
 * - 400, 404, 409, 413, 415, 422: the provider refused the request itself. The client gets that
 *   status with the provider's message (and, from an OpenAI-wire provider, its type, code and
 *   param) in the client wire's envelope; no other route is tried: it would refuse it too.
 * - 429: a route failure; if it was the last route, the client gets 429 with the provider's
 *   `Retry-After`.
 * - 401, 403: the provider refused the gateway's credentials: a route failure, a 502 to the client
 *   (never the client's fault).
 * - anything else (5xx, 408, …): a route failure, 502.
 */
export async function refusalOf(provider: UpstreamProvider, answer: Dispatcher.ResponseData): Promise<GatewayError> {
  const status = answer.statusCode;
  const text = await bodyText(answer);
  const fields = errorFields(text);
  const message = fields.message === undefined ? undefined : redactSecrets(fields.message, provider.endpoint.secrets());
  if (REQUEST_REFUSALS.has(status)) {
    return new GatewayError("upstream_rejected", message ?? `The provider ${provider.name} refused the request (${status}) without saying why.`, {
      upstream: { status, ...(fields.type !== undefined && { type: fields.type }), ...(fields.code !== undefined && { code: fields.code }) },
      ...(fields.param !== undefined && { param: fields.param }),
    });
  }
  if (status === 429) {
    const headers: Record<string, string> = {};
    for (const name of ["retry-after", "retry-after-ms"]) {
      const value = answer.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    return new GatewayError("upstream_rate_limited", `The provider ${provider.name} is limiting the rate of requests (429)${message ? `: ${message}` : ""}; retry after the time Retry-After gives.`, { headers });
  }
  if (status === 401 || status === 403) {
    return new GatewayError("upstream_failed", `The provider ${provider.name} refused the gateway's own credentials (${status}); the gateway's operator must fix its key. Your request was not at fault.`);
  }
  return new GatewayError("upstream_failed", `The provider ${provider.name} answered ${status}; the request was not completed.`);
}
