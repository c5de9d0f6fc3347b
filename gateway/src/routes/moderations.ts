import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BuiltInModerationRequest, COST_HEADER, formatUnits, ModerationResponse, ROUTES } from "@gateway-keys/contract";
import { apiKeyOf } from "../context";
import { newId } from "../crypto";
import { parseBody } from "../http/validation";
import { IMAGE_INPUT_TOKENS } from "../inference/input-estimate";
import { MeteredCall } from "../pipeline/metered-call";
import { countTokens } from "../inference/tokens";
import { costOf } from "../metering/pricing";
import { relayMedia } from "../pipeline/media-relay";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** A forwarded moderation's input as the gateway counts it (the wire reports no usage): texts by its rule, each image at its allowance. */
function inputTokensOf(input: unknown): number {
  if (typeof input === "string") return countTokens(input);
  if (!Array.isArray(input)) return 0;
  return input.reduce<number>((sum, item) => {
    if (typeof item === "string") return sum + countTokens(item);
    const part = item as { type?: string; text?: string };
    return sum + (part.type === "image_url" ? IMAGE_INPUT_TOKENS : countTokens(part.text ?? ""));
  }, 0);
}

/** `POST /v1/moderations`: one verdict per input; without `model`, the first moderation model. */
export const moderationsRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.moderations, { bodyLimit: 4 * 1024 * 1024 }),
    handler: async (request, reply) => {
      const modelId = request.body.model ?? ctx.models.defaultOf("moderation")?.id ?? "(none)";
      // A built-in model takes the fields it knows, checked before anything is metered.
      const builtIn = ctx.models.forwards(modelId) ? undefined : parseBody(BuiltInModerationRequest, request.body);
      const texts = builtIn === undefined ? [] : typeof builtIn.input === "string" ? [builtIn.input] : builtIn.input;
      const logged = builtIn === undefined ? (typeof request.body.input === "string" ? request.body.input : JSON.stringify(request.body.input)) : texts.join("\n");
      const call = new MeteredCall(ctx, reply, apiKeyOf(request), modelId, logged);
      const model = await call.admit("moderation");
      if (model.forwarded) {
        const charge = costOf(model.pricing, { inputTokens: inputTokensOf(request.body.input), outputTokens: 0 });
        return relayMedia(call, model.forwarded, { path: "/moderations", body: { json: { ...request.body, model: modelId } }, reserveMicros: charge, cost: () => charge }, reply);
      }
      const inputTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
      const { result, costMicros } = await call.run(model, { inputTokens, outputTokens: 0 }, async () => {
        const { verdicts, usage } = await model.engine.classify(texts);
        return { result: verdicts, usage, output: JSON.stringify(verdicts.map((verdict) => verdict.categories)) };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      const answer: ModerationResponse = {
        id: newId("modr"),
        model: model.id,
        results: result.map((verdict) => ({
          flagged: Object.values(verdict.categories).some(Boolean),
          categories: verdict.categories,
          category_scores: verdict.scores,
          category_applied_input_types: Object.fromEntries(Object.keys(verdict.categories).map((category) => [category, ["text"]])),
        })),
      };
      return answer;
    },
  });
};
