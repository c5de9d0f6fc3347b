import { z } from "zod";
import type { FormData } from "undici";
import { GatewayError } from "../../errors";
import { serverSentEvents } from "../sse-events";
import { MultipartForm, type ProviderCall, type ProviderEndpoint, type ProviderWire } from "../upstream-provider";

/**
 * What every kind of provider shares in `--config`, and the small pieces each kind's endpoint is
 * built from. A provider's credentials are never in the file: it names where they are.
 */
export const EnvironmentVariableName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { error: "expected an environment variable name such as OPENAI_API_KEY" });
export const HttpUrl = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

export const commonProviderFields = {
  /** Per-attempt time limit in ms (connect to last byte of a whole answer; between events of a stream). Default 60 000. */
  timeoutMs: z.number().int().min(100).max(600_000).default(60_000),
  /**
   * The most connections open to the provider at once. Each request (a stream for its whole
   * length) holds one, so this bounds the requests in flight to it; more wait. Default 1024.
   */
  maxConnections: z.number().int().min(1).max(65_536).default(1024),
};

/** The families of models a gateway forwards (models/upstream-config.ts names them the same). */
export type ForwardedFamily = "chat" | "embeddings" | "moderation" | "images" | "speech" | "transcription";

/** A provider of some kind, opened: the origin its connections go to, the wire it speaks, how a call reaches it. */
export interface OpenedProvider {
  origin: string;
  wire: ProviderWire;
  endpoint: ProviderEndpoint;
  /**
   * The wire's text operations (`/chat/completions`, `/responses`, `/v1/messages`) the provider
   * serves as the client sent them; a text request on another is translated to its wire's first.
   * Unset: every one of its wire.
   */
  relayPaths?: ReadonlySet<string>;
  /** Releases what the kind holds besides the connection pool (token refreshers, …). */
  close?(): Promise<void>;
}

/** One kind of provider: its config (discriminated by `kind`) and how to open a provider of it. */
export interface ProviderKind<Config extends { kind: string }> {
  config: z.ZodType<Config>;
  /**
   * The families a provider of this kind forwards: the config refuses a model of another family
   * routed to it. A function of the config where the kind's variants differ (a publisher, an API).
   */
  families(config: Config): ReadonlySet<ForwardedFamily>;
  /** `name`: the provider's name in the config, for errors. Reads credentials from `env` once. */
  open(config: Config, name: string, env: NodeJS.ProcessEnv): OpenedProvider;
}

/** Bearer tokens of a provider: a valid one (fetched, or refreshed before it expires, when needed), and the last handed out, for redaction. */
export interface TokenSource {
  token(): Promise<string>;
  current(): readonly string[];
  /** Drops the cached token: the provider refused it, so the next call obtains a fresh one. */
  forget(): void;
}

/**
 * A token source over a library's cached token getter. `open` makes a fresh getter (a client that
 * holds no token yet): forgetting a refused token is opening another. A getter that fails or gives
 * nothing is the route's failure (credentialFailure), never the client's.
 */
export function libraryTokenSource(provider: string, open: () => () => Promise<string | null | undefined>, nothing: string): TokenSource {
  let fetchToken = open();
  let last: string | undefined;
  return {
    async token() {
      let token: string | null | undefined;
      try {
        token = await fetchToken();
      } catch (error) {
        throw credentialFailure(provider, error);
      }
      if (!token) throw credentialFailure(provider, new Error(nothing));
      last = token;
      return token;
    },
    current: () => (last === undefined ? [] : [last]),
    forget() {
      fetchToken = open();
    },
  };
}

/** The value of a credential's environment variable; a missing one is an error naming it (never a value). */
export function requiredVariable(env: NodeJS.ProcessEnv, variable: string, provider: string, holds: string): string {
  const value = env[variable];
  if (!value) throw new Error(`provider ${provider}: the environment variable ${variable} is not set; it must hold ${holds}`);
  return value;
}

/** The path of an operation under a base URL (which may have a path of its own), worked out once per pair rather than per request. */
const pathsUnder = new Map<string, string>();

export function pathUnder(baseUrl: string, path: string): string {
  const key = `${baseUrl}\n${path}`;
  let known = pathsUnder.get(key);
  if (known === undefined) {
    const url = new URL(baseUrl.replace(/\/+$/, "") + path);
    known = url.pathname + url.search;
    pathsUnder.set(key, known);
  }
  return known;
}

/** Client headers the OpenAI wire defines, passed on to a provider of that wire. */
export const OPENAI_WIRE_HEADERS = ["openai-beta"] as const;

/** The client headers among `names` (a wire's own, such as `anthropic-beta`), to pass on. */
export function passedHeaders(names: readonly string[], clientHeaders: ProviderCall["clientHeaders"], into: Record<string, string>): Record<string, string> {
  if (clientHeaders === undefined) return into;
  for (const name of names) {
    const value = clientHeaders[name];
    if (typeof value === "string") into[name] = value;
  }
  return into;
}

/**
 * A call's body as bytes for an API that takes the model in the body: JSON with `model` first, its
 * content type set in `headers`, or a multipart form (undici sets its type and boundary).
 */
export function encodedBody(call: ProviderCall, headers: Record<string, string>): string | FormData {
  if (call.body instanceof MultipartForm) return call.body.encode(call.model);
  headers["content-type"] = "application/json";
  return JSON.stringify({ model: call.model, ...call.body });
}

/** A call's JSON body, for an API that takes JSON only. */
export function jsonBody(call: ProviderCall, provider: string): Record<string, unknown> {
  if (call.body instanceof MultipartForm) throw new Error(`${provider} takes JSON bodies only`);
  return call.body;
}

export const EVERY_FAMILY: ReadonlySet<ForwardedFamily> = new Set(["chat", "embeddings", "moderation", "images", "speech", "transcription"]);
export const CHAT_ONLY: ReadonlySet<ForwardedFamily> = new Set(["chat"]);

/**
 * A kind that could not obtain its credentials (a token endpoint down, a key file refused): the
 * route's failure, never the client's; the library's own account stays on `cause` for the
 * operator, out of the client's answer.
 */
export function credentialFailure(provider: string, cause: unknown): GatewayError {
  const failure = new GatewayError("upstream_failed", `The gateway could not obtain its own credentials for the provider ${provider}; the gateway's operator must fix them. Your request was not at fault.`);
  failure.cause = cause;
  return failure;
}

/**
 * The endpoint of a provider reached with one fixed key (the `openai` and `anthropic` kinds): paths
 * under its base URL, the key's headers beside the wire's own client headers, server-sent events.
 */
export function keyedEndpoint(baseUrl: string, credentialHeaders: Record<string, string>, wireHeaders: readonly string[], key: string): ProviderEndpoint {
  return {
    prepare(call) {
      const headers = passedHeaders(wireHeaders, call.clientHeaders, { ...credentialHeaders });
      return { path: pathUnder(baseUrl, call.path), headers, body: encodedBody(call, headers) };
    },
    events: (body) => serverSentEvents(body),
    secrets: () => [key],
  };
}
