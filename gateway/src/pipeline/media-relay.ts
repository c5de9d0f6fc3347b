import type { FastifyReply } from "fastify";
import { FormData } from "undici";
import { COST_HEADER, formatUnits } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import { SseStream } from "../inference/sse";
import type { MediaAnswer, MediaBody, MediaRelay } from "../inference/media-wire";
import type { RelayRoute } from "../inference/relay";
import { isRouteFailure, readJson, sendToProvider, upstreamFailure, type ProviderCall, type UpstreamProvider } from "../upstream/send";
import type { MeteredCall } from "./metered-call";

function payloadFor(body: MediaBody, model: string): Record<string, unknown> | FormData {
  if ("json" in body) return { ...body.json, model };
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...body.form.fields, model })) form.append(name, value);
  form.append("file", new Blob([body.form.file.bytes], { type: body.form.file.type }), body.form.file.name);
  return form;
}

/** The provider's answer as it sent it, or as its kind's exchange wrote it (upstream-provider.ts). */
async function mediaAnswer(provider: UpstreamProvider, call: ProviderCall, signal: AbortSignal): Promise<MediaAnswer> {
  const exchange = provider.endpoint.exchanges?.[call.path];
  if (exchange) return exchange(call, async (sent) => readJson(provider, await sendToProvider(provider, sent, signal))).catch((error: unknown) => Promise.reject(upstreamFailure(provider, error)));
  const answer = await sendToProvider(provider, call, signal);
  // A body cut short is the route's failure, like no answer at all.
  const bytes = await answer.body.arrayBuffer().then(Buffer.from, (error: unknown) => Promise.reject(upstreamFailure(provider, error)));
  const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/octet-stream";
  return { bytes, contentType };
}

/**
 * Forwards a media request (embeddings, moderations, images, speech, transcription) to a model's
 * routes, in order, as the client sent it but for the model: reserves, sends, settles the cost
 * measured from the answer, and replies with the provider's bytes untouched. The next route is
 * tried on the failures a chat request would retry on (upstream/send.ts); nothing is charged
 * for a request no route answered.
 */
export async function relayMedia(call: MeteredCall, routes: readonly RelayRoute[], relay: MediaRelay, reply: FastifyReply): Promise<FastifyReply> {
  await call.reserveMicros(relay.reserveMicros, relay.tokens?.reserved ?? 0);
  const signal = SseStream.clientGone(reply);
  let failure: unknown;
  for (const route of routes) {
    try {
      const media = await mediaAnswer(route.provider, { path: relay.path, model: route.model, stream: false, body: payloadFor(relay.body, route.model) }, signal);
      const { bytes, contentType } = media;
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
