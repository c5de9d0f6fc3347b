import type { FormData, Pool } from "undici";
import type { ServerSentEvent } from "./sse-events";

/**
 * The wire a provider's text API speaks: a relay goes unchanged to a provider of the client's own
 * wire; any other is reached by translation (inference/translation.ts).
 */
export type ProviderWire = "openai" | "anthropic" | "converse";

/** The Messages API version the gateway speaks to providers when the client names none. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/**
 * One request the gateway makes of a provider, in the terms of the provider's wire — before the
 * provider's kind says where it goes and how it is authenticated.
 */
export interface ProviderCall {
  /** The operation as the wire's own API names it: `/chat/completions`, `/v1/messages`, `/embeddings`, … */
  path: string;
  /** The model id at the provider (for some kinds a deployment or a path segment, not a body field). */
  model: string;
  stream: boolean;
  /** The body on the wire, `model` included; a kind that takes the model elsewhere moves it. */
  body: Record<string, unknown> | FormData;
  /** The client's headers, of which the wire's own (e.g. `anthropic-beta`) are passed on; never its credentials. */
  clientHeaders?: Record<string, string | string[] | undefined>;
}

/** A call as it goes on the connection: path under the provider's origin, headers, bytes. */
export interface HttpRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | FormData;
}

/** A whole answer written in the client wire's terms by a kind's {@link ProviderExchange}. */
export interface ExchangedAnswer {
  bytes: Buffer;
  contentType: string;
}

/**
 * A family a kind serves in another shape than the client's wire, or with more than one call
 * (Bedrock's embeddings: one InvokeModel per text): it sends the calls it needs through `send`
 * (each prepared, signed and checked like any call; resolves with the 2xx answer's JSON) and writes
 * the wire's answer, as a provider of the wire would have sent it.
 */
export type ProviderExchange = (call: ProviderCall, send: (call: ProviderCall) => Promise<unknown>) => Promise<ExchangedAnswer>;

/**
 * What a kind of provider (openai, anthropic, azure-openai, bedrock, vertex: upstream/kinds/)
 * knows about reaching it: where a call goes, how it is authenticated or signed, and how its
 * streamed answers are framed. Everything above this sees only the wire.
 */
export interface ProviderEndpoint {
  /** The HTTP request of a call: may fetch a token or sign the body, hence possibly async. */
  prepare(call: ProviderCall): HttpRequest | Promise<HttpRequest>;
  /** The events of a streamed answer, as the wire's server-sent events (decoded from the kind's framing). */
  events(body: AsyncIterable<Buffer>, call: ProviderCall): AsyncIterable<ServerSentEvent>;
  /** The credentials in use, which never reach a client even when a provider quotes them in an error. */
  secrets(): readonly string[];
  /**
   * The provider refused the credentials it was sent (401, 403): a kind that caches tokens drops
   * them, so the next call obtains fresh ones instead of failing until they would have expired
   * (a token revoked, a role removed).
   */
  credentialsRefused?(): void;
  /** The media operations (by the wire's path, e.g. `/embeddings`) the kind answers by exchange rather than as relayed. */
  exchanges?: Readonly<Record<string, ProviderExchange>>;
}

/** One provider as the gateway reaches it: a pooled connection to its origin and its kind's endpoint. */
export interface UpstreamProvider {
  name: string;
  wire: ProviderWire;
  timeoutMs: number;
  pool: Pool;
  endpoint: ProviderEndpoint;
  /**
   * The wire's text operations (paths) the provider serves as the client sent them; a text
   * request on another is translated to the wire's Chat Completions or Messages. Unset: all.
   */
  relayPaths?: ReadonlySet<string>;
  /** Hears how long each attempt took to its response headers (or its failure); the metrics listen. */
  observe?: (outcome: "ok" | "error_status" | "timeout" | "failed", seconds: number) => void;
}
