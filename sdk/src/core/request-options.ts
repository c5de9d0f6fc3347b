import type { z } from "zod";

/**
 * Per-call options. Every resource method takes them as its last argument.
 *
 * @example
 * await client.apiKeys.create({ name: "ci" }, { idempotencyKey: "deploy-42-ci", timeoutMs: 10_000 });
 */
export interface RequestOptions {
  /**
   * Idempotency-Key for a mutation. Defaults to a fresh one per call, chosen before the first attempt
   * and sent on every retry. Pass your own to make a call safe to repeat across process restarts.
   * Ignored by GET requests.
   */
  idempotencyKey?: string;
  /** Aborts the call, including any wait between retries; the call then rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Time limit of each attempt, in milliseconds (headers and body). Overrides the client's. */
  timeoutMs?: number;
  /** Retries after the first attempt. Overrides the client's; 0 disables retries. */
  maxRetries?: number;
}

/**
 * Options of model endpoints, which authenticate with a regular API key rather than the
 * provisioning key.
 *
 * @example
 * await client.responses.create({ model: "echo-1", input: "hi" }, { apiKey: created.secret });
 */
export interface ModelRequestOptions extends RequestOptions {
  /** Regular API key for this call; defaults to the client's `apiKey`. */
  apiKey?: string;
}

/**
 * What the SDK saw of the final answer, from `.withResponse()`.
 *
 * @example
 * const { data, response } = await client.apiKeys.create({ name: "ci" }).withResponse();
 * if (response.replayed) console.log("the gateway had already done this; here is the original answer");
 */
export interface ResponseInfo {
  /** HTTP status of the final answer. */
  status: number;
  /** The gateway's request id, when it sent one. */
  requestId: string | undefined;
  /** True when the gateway replayed a stored answer for this Idempotency-Key. */
  replayed: boolean;
  /** The Idempotency-Key sent (every attempt sent the same one); undefined for GET. */
  idempotencyKey: string | undefined;
  /** Attempts made, 1 when there was no retry. */
  attempts: number;
}

/** A parsed answer together with what the SDK saw of it. */
export interface WithResponse<T> {
  data: T;
  response: ResponseInfo;
}

/**
 * Where the SDK writes what it does (retries, fallbacks). `console` fits. Lines never contain
 * secrets, credentials or bodies.
 *
 * @example
 * new GatewayClient({ baseUrl, provisioningKey, logger: console });
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Which credential a request carries. */
export type Auth = "provisioning" | "apiKey" | "optionalApiKey" | "none";

/**
 * One request as resources describe it to {@link GatewayClient.request}.
 *
 * @example
 * client.request({ method: "GET", path: "/v1/startups", auth: "none", schema: GatewayInfo });
 */
export interface RequestSpec<T> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path below the base URL, with path parameters already encoded. */
  path: string;
  query?: Record<string, string | number | readonly string[] | undefined>;
  /** JSON body. */
  body?: unknown;
  auth: Auth;
  /** Contract schema of the 2xx answer. */
  schema: z.ZodType<T>;
  /** Key the call is about, for error messages. */
  keyId?: string;
  /** Team the call is about, for error messages. */
  teamId?: string;
  /** Version the call expects, for conflict messages. */
  expectedVersion?: number;
  options?: ModelRequestOptions | undefined;
}

/** A list request: like {@link RequestSpec}, with the schema of one item. */
export interface PageSpec<Item> extends Omit<RequestSpec<Item>, "method" | "schema" | "body"> {
  item: z.ZodType<Item>;
}
