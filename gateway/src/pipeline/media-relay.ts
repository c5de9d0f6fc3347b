import type { FastifyReply } from "fastify";
import { FormData } from "undici";
import { COST_HEADER, formatUnits } from "@gateway-keys/contract";
import type { MeteredCall } from "./metered-call";
import { SseStream } from "../inference/sse";
import { GatewayError } from "../errors";
import { isRouteFailure, providerHeaders, sendToProvider, upstreamFailure } from "../upstream/provider";
import type { RelayRoute } from "../inference/relay";

/** A provider's whole answer to a media request, as it sent it. */
export interface MediaAnswer {
  bytes: Buffer;
  contentType: string;
}

/** The body of a media request for one route: the client's JSON, or its multipart form, with the route's model. */
export type MediaBody = { json: Record<string, unknown> } | { form: { fields: Record<string, string>; file: { name: string; type: string; bytes: Buffer } } };

export interface MediaRelay {
  /** The path at the provider, after its base URL (`/embeddings`, …). */
  path: string;
  body: MediaBody;
  /** The most the request can cost, reserved before it is sent. */
  reserveMicros: bigint;
  /** What the answer costs, measured in the family's unit (never more than the reservation under a limit). */
  cost(answer: MediaAnswer): bigint;
  /** For a family priced in tokens: the most the request can use, and what it used, as a key's tokensPerMinute counts them. */
  tokens?: { reserved: number; used(answer: MediaAnswer): number };
  /** What the log keeps as the response, when the key's policy stores responses. */
  logged?(answer: MediaAnswer): string | null;
}

function payloadFor(body: MediaBody, model: string): string | FormData {
  if ("json" in body) return JSON.stringify({ ...body.json, model });
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...body.form.fields, model })) form.append(name, value);
  form.append("file", new Blob([body.form.file.bytes], { type: body.form.file.type }), body.form.file.name);
  return form;
}

/**
 * Forwards a media request (embeddings, moderations, images, speech, transcription) to a model's
 * routes, in order, as the client sent it but for the model: reserves, sends, settles the cost
 * measured from the answer, and replies with the provider's bytes untouched. The next route is
 * tried on the failures a chat request would retry on (provider.ts); nothing is charged for a
 * request no route answered.
 */
export async function relayMedia(call: MeteredCall, routes: readonly RelayRoute[], relay: MediaRelay, reply: FastifyReply): Promise<FastifyReply> {
  await call.reserveMicros(relay.reserveMicros, relay.tokens?.reserved ?? 0);
  const signal = SseStream.clientGone(reply);
  let failure: unknown;
  for (const route of routes) {
    try {
      const answer = await sendToProvider(route.provider, relay.path, providerHeaders(route.provider), payloadFor(relay.body, route.model), signal);
      // A body cut short is the route's failure, like no answer at all.
      const bytes = await answer.body.arrayBuffer().then(Buffer.from, (error: unknown) => Promise.reject(upstreamFailure(route.provider, error)));
      const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/octet-stream";
      const media = { bytes, contentType };
      const costMicros = await call.succeedMicros(relay.cost(media), relay.logged?.(media) ?? null, relay.tokens?.used(media));
      return reply.header(COST_HEADER, formatUnits(costMicros)).type(contentType).send(bytes);
    } catch (error) {
      failure = error;
      if (!isRouteFailure(error) || signal.aborted) break;
    }
  }
  await call.fail(failure instanceof GatewayError ? failure.statusCode : 502);
  throw failure;
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
