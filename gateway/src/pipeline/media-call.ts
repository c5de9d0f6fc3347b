import type { FastifyReply, FastifyRequest } from "fastify";
import { COST_HEADER, ROUTE_HEADER, formatUnits } from "@gateway-keys/contract";
import { apiKeyOf, type GatewayContext } from "../context";
import { GatewayError } from "../errors";
import { SseStream } from "../inference/sse";
import type { BuiltInMediaModel, MediaFamily, MediaRelay, MediaWire } from "../inference/media-wire";
import type { ProviderRoute } from "../models/catalog";
import { attemptRoutes, bothObservers } from "../dispatch/attempts";
import { attemptSpans } from "../telemetry/attempt-spans";
import { GEN_AI_OPERATION } from "../telemetry/genai";
import { traceContextOf } from "../telemetry/request-spans";
import { callMediaRoute } from "../dispatch/call-route";
import { chooseMediaRoutes, type MediaRoute } from "../dispatch/choose-route";
import type { RoutePlan } from "../dispatch/router";
import { MeteredCall } from "./metered-call";

/**
 * Runs a request of a media family on its wire: reads it (a built-in model's fields checked before
 * anything is metered), admits the model under the key's policies, then either forwards it to the
 * model's providers or reserves what the built-in model can use, runs it and settles what it used.
 * Every outcome is charged and logged by {@link MeteredCall}. Returns the answer the route's schema
 * serialises, or the reply once written.
 */
export async function runMediaCall<Family extends MediaFamily, Body, Parsed, Result>(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  wire: MediaWire<Family, Body, Parsed, Result>,
  body: Body,
): Promise<unknown> {
  const defaultModel = ctx.models.defaultOf(wire.family)?.id;
  const asked = wire.requestedModel(body, defaultModel);
  // The model is looked up once, here, and handed on.
  const known = asked === undefined ? undefined : ctx.models.get(asked);
  const forwarded = known !== undefined && known.family !== "chat" && known.forwarded !== undefined;
  const read = wire.read(body, forwarded, defaultModel);
  const call = new MeteredCall(ctx, reply, apiKeyOf(request), read.modelId, read.logged);
  const model = await call.admitMedia(wire.family, read.modelId === asked ? known : ctx.models.get(read.modelId));
  if (model.forwarded) {
    const observer = attemptSpans(ctx.tracing, traceContextOf(request), GEN_AI_OPERATION[wire.family], read.modelId, false);
    return forward(call, model.forwarded, wire.forward(body, model, read), reply, observer, await ctx.router.plan(model.id, model.routing, model.forwarded.length));
  }
  const builtIn: BuiltInMediaModel<Family> = model;
  // Read as forwarded only when the catalog said so; a built-in model always has its fields read.
  const parsed = read.parsed ?? wire.read(body, false, defaultModel).parsed!;
  const { result, costMicros } = await call.run(model, wire.bound(parsed, builtIn), () => wire.run(parsed, builtIn));
  reply.header(COST_HEADER, formatUnits(costMicros));
  const answer = wire.answer(result, parsed, builtIn, ctx.now());
  if ("bytes" in answer) return reply.type(answer.contentType).send(answer.bytes);
  return answer.contentType === undefined ? answer.json : reply.type(answer.contentType).send(answer.json);
}

/**
 * Forwards a media request (embeddings, moderations, images, speech, transcription) to a model's
 * routes (dispatch/), as the client sent it but for the model: reserves, sends, settles the cost
 * measured from the answer, and replies with the provider's bytes untouched. Nothing is charged
 * for a request no route answered.
 */
async function forward(
  call: MeteredCall,
  routes: readonly ProviderRoute[],
  relay: MediaRelay,
  reply: FastifyReply,
  spans: ReturnType<typeof attemptSpans>,
  plan: RoutePlan,
): Promise<FastifyReply> {
  await call.reserveMicros(relay.reserveMicros, relay.tokens?.reserved ?? 0);
  const signal = SseStream.clientGone(reply);
  plan.tokens = relay.tokens?.reserved ?? 0;
  try {
    const send = plan.attempt((route: MediaRoute, headers) => callMediaRoute(route, relay.path, relay.body, signal, headers));
    const media = await attemptRoutes(chooseMediaRoutes(routes, relay.path, plan.order), send, { signal, observer: bothObservers<MediaRoute>(spans, plan.observer) }).catch((error: unknown) =>
      Promise.reject(plan.failure(error)),
    );
    // The route that answered, named to the client and in the request log (a provider's name and model: never a credential).
    if (plan.chosen !== undefined) {
      reply.header(ROUTE_HEADER, plan.chosen);
      call.noteRoute(plan.chosen);
    }
    const costMicros = await call.succeedMicros(relay.cost(media), relay.logged?.(media) ?? null, relay.tokens?.used(media));
    return reply.header(COST_HEADER, formatUnits(costMicros)).type(media.contentType).send(media.bytes);
  } catch (error) {
    await call.fail(error instanceof GatewayError ? error.statusCode : 502);
    throw error;
  } finally {
    plan.finish(call.chargedTokens);
  }
}
