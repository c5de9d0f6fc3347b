import { FormData, type Pool } from "undici";
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
  /**
   * The model id at the provider, carried here only: the kind puts it where its API takes it (the
   * body's `model` field, a deployment in the path, a path segment).
   */
  model: string;
  stream: boolean;
  /** The body on the wire but for `model` (see {@link model}): JSON, or a multipart upload. */
  body: Record<string, unknown> | MultipartForm;
  /** The client's headers, of which the wire's own (e.g. `anthropic-beta`) are passed on; never its credentials. */
  clientHeaders?: Record<string, string | string[] | undefined>;
  /** The trace context of the attempt's span (`traceparent`, `tracestate`), sent as they are so the provider's spans continue the trace. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/** A multipart upload (a transcription's audio) to a provider: its text fields (but `model`) and one file. */
export class MultipartForm {
  constructor(
    readonly fields: Readonly<Record<string, string>>,
    readonly file: { name: string; type: string; bytes: Buffer },
  ) {}

  /** The form on the wire, `model` its first field. */
  encode(model: string): FormData {
    const form = new FormData();
    form.append("model", model);
    for (const [name, value] of Object.entries(this.fields)) form.append(name, value);
    form.append("file", new Blob([this.file.bytes], { type: this.file.type }), this.file.name);
    return form;
  }
}

/** A call as it goes on the connection: path under the provider's origin, headers, bytes. */
export interface HttpRequest {
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | FormData;
}

/**
 * An exchange a kind needs for a media operation it serves in another shape than the client's
 * wire, or with more than one call: named here, written with the wires (inference/wires/provider-wires.ts).
 */
export type ProviderExchangeName = "titan-embeddings";

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
  /** The media operations (by the wire's path, e.g. `/embeddings`) the kind answers by an exchange rather than as relayed. */
  exchanges?: Readonly<Record<string, ProviderExchangeName>>;
}

/** One provider as the gateway reaches it: a pooled connection to its origin and its kind's endpoint. */
export interface UpstreamProvider {
  name: string;
  /** Its kind in the config (`openai`, `azure-openai`, `bedrock`…), for the traces' `gen_ai.provider.name`. */
  kind: string;
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
