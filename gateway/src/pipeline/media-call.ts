import type { FastifyReply, FastifyRequest } from "fastify";
import { COST_HEADER, formatUnits } from "@gateway-keys/contract";
import { apiKeyOf, type GatewayContext } from "../context";
import type { BuiltInMediaModel, MediaFamily, MediaWire } from "../inference/media-wire";
import { relayMedia } from "./media-relay";
import { MeteredCall } from "./metered-call";

/**
 * Runs a request of a media family on its wire: reads it (a built-in model's fields checked before
 * anything is metered), admits the model under the key's policies, then either relays it to the
 * model's providers (pipeline/media-relay.ts) or reserves what the built-in model can use, runs
 * it and settles what it used. Every outcome is charged and logged by {@link MeteredCall}.
 * Returns the answer the route's schema serialises, or the reply once written.
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
  const read = wire.read(body, asked !== undefined && ctx.models.forwards(asked), defaultModel);
  const call = new MeteredCall(ctx, reply, apiKeyOf(request), read.modelId, read.logged);
  const model = await call.admitMedia(wire.family);
  if (model.forwarded) return relayMedia(call, model.forwarded, wire.forward(body, model, read), reply);
  const builtIn: BuiltInMediaModel<Family> = model;
  // Read as forwarded only when the catalog said so; a built-in model always has its fields read.
  const parsed = read.parsed ?? wire.read(body, false, defaultModel).parsed!;
  const { result, costMicros } = await call.run(model, wire.bound(parsed, builtIn), () => wire.run(parsed, builtIn));
  reply.header(COST_HEADER, formatUnits(costMicros));
  const answer = wire.answer(result, parsed, builtIn, ctx.now());
  if ("bytes" in answer) return reply.type(answer.contentType).send(answer.bytes);
  return answer.contentType === undefined ? answer.json : reply.type(answer.contentType).send(answer.json);
}
