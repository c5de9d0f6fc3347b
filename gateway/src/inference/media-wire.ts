import type { ModelFamily } from "@gateway-keys/contract";
import type { ModelPricing } from "../metering/pricing";
import type { ProviderCall } from "../upstream/send";
import type { MediaEngines } from "./engines";
import type { TextUsage } from "./text";

/** The families answered whole by one engine call or one provider request: every family but chat. */
export type MediaFamily = Exclude<ModelFamily, "chat">;

/** A built-in model of a media family, as its wire uses it. */
export interface BuiltInMediaModel<Family extends MediaFamily> {
  id: string;
  pricing: ModelPricing;
  maxOutputTokens: number;
  engine: MediaEngines[Family];
}

/** A forwarded model of a media family, as its wire uses it. */
export interface ForwardedMediaModel {
  id: string;
  pricing: ModelPricing;
}

/** A provider's whole answer to a media request, as it sent it. */
export interface MediaAnswer {
  bytes: Buffer;
  contentType: string;
}

/**
 * A media operation a provider's kind serves in another shape than the client's wire, or with more
 * than one call (Bedrock's embeddings: one InvokeModel per text): it sends the calls it needs
 * through `send` (each prepared, signed and checked like any call; resolves with the 2xx answer's
 * JSON) and writes the wire's answer, as a provider of the wire would have sent it. The kind names
 * its exchange (ProviderEndpoint's `exchanges`); wires/provider-wires.ts holds them.
 */
export type ProviderExchange = (call: ProviderCall, send: (call: ProviderCall) => Promise<unknown>) => Promise<MediaAnswer>;

/** The body of a media request as the client sent it: its JSON, or its multipart form (whose `model` the route's replaces). */
export type MediaBody = { json: Record<string, unknown> } | { form: { fields: Record<string, string>; file: { name: string; type: string; bytes: Buffer } } };

/** How a request for a forwarded model is relayed and charged. */
export interface MediaRelay {
  /** The path at the provider, after its base URL (`/embeddings`, …). */
  path: string;
  body: MediaBody;
  /** The most the request can cost, reserved before it is sent. */
  reserveMicros: bigint;
  /** What the answer costs, measured in the family's unit (the pipeline charges no more than the reservation under a limit). */
  cost(answer: MediaAnswer): bigint;
  /** For a family priced in tokens: the most the request can use, and what it used, as a key's tokensPerMinute counts them. */
  tokens?: { reserved: number; used(answer: MediaAnswer): number };
  /** What the log keeps as the response, when the key's policy stores responses. */
  logged?(answer: MediaAnswer): string | null;
}

/** An answer the gateway builds: JSON (serialised by the route's schema, or sent as `contentType`), or bytes. */
export type MediaReply = { json: unknown; contentType?: string } | { bytes: Buffer; contentType: string };

/** What a wire reads of a request before anything is metered. */
export interface MediaRead<Parsed> {
  /** The model asked for. */
  modelId: string;
  /** What the request log keeps as the request, when the key's policy stores requests. */
  logged: string;
  /** For a built-in model: the fields it takes, checked (a 400 names the field). */
  parsed?: Parsed;
}

/**
 * One media wire (`POST /v1/embeddings`, …): how its requests are read, relayed to a provider of
 * the wire, or run on a built-in engine and answered. The pipeline (pipeline/media-call.ts) does
 * the rest — admission under the key's policies, the reservation, the charge and the log.
 */
export interface MediaWire<Family extends MediaFamily, Body, Parsed, Result> {
  family: Family;
  /** The model the request names, unchecked (`defaultModel`, the family's first, for a wire whose `model` is optional). */
  requestedModel(body: Body, defaultModel: string | undefined): string | undefined;
  /**
   * Reads the request: for a built-in model (`forwarded` false) every field it takes, checked; for a
   * forwarded one only what the gateway needs (the rest goes to the provider as sent).
   * `defaultModel` is the family's first model, for a wire whose `model` is optional.
   */
  read(body: Body, forwarded: boolean, defaultModel: string | undefined): MediaRead<Parsed>;
  /** The request for a forwarded model, as it is relayed and charged. */
  forward(body: Body, model: ForwardedMediaModel, read: MediaRead<Parsed>): MediaRelay;
  /** The most a built-in model's run can use (its reservation); refuses what the model cannot do. */
  bound(parsed: Parsed, model: BuiltInMediaModel<Family>): TextUsage;
  /** Runs the built-in model: its result, its usage and what the log keeps as the response. */
  run(parsed: Parsed, model: BuiltInMediaModel<Family>): Promise<{ result: Result; usage: TextUsage; output: string | null }>;
  /** The client's answer to a built-in model's result. */
  answer(result: Result, parsed: Parsed, model: BuiltInMediaModel<Family>, nowMs: number): MediaReply;
}

/** The JSON of a media answer, or `undefined` when it is not JSON (audio, plain text). */
export function answerJson(answer: MediaAnswer): Record<string, unknown> | undefined {
  if (!answer.contentType.includes("json")) return undefined;
  try {
    return JSON.parse(answer.bytes.toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
