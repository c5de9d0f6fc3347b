import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { COST_HEADER, formatUnits, ModerationRequest, ModerationResponse, NoQuery } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { apiKeyOf } from "../context";
import { newId } from "../crypto";
import { MeteredCall } from "../inference/metered-call";
import { countTokens } from "../inference/tokens";
import type { RouteOptions } from "./account-keys";

/** `POST /v1/moderations`: one verdict per input text; without `model`, the first moderation model. */
export const moderationsRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  app.post(
    "/moderations",
    { onRequest: [requireApiKey(ctx)], bodyLimit: 4 * 1024 * 1024, schema: { querystring: NoQuery, body: ModerationRequest, response: { 200: ModerationResponse } } },
    async (request, reply): Promise<ModerationResponse> => {
      const body = request.body;
      const texts = typeof body.input === "string" ? [body.input] : body.input;
      const modelId = body.model ?? ctx.models.defaultOf("moderation")?.id ?? "(none)";
      const call = new MeteredCall(ctx, apiKeyOf(request), modelId, texts.join("\n"));
      const model = await call.admit("moderation");
      const inputTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
      const { result, costMicros } = await call.run(model, { inputTokens, outputTokens: 0 }, async () => {
        const { verdicts, usage } = await model.engine.classify(texts);
        return { result: verdicts, usage, output: JSON.stringify(verdicts.map((verdict) => verdict.categories)) };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      return {
        id: newId("modr"),
        model: model.id,
        results: result.map((verdict) => ({
          flagged: Object.values(verdict.categories).some(Boolean),
          categories: verdict.categories,
          category_scores: verdict.scores,
        })),
      };
    },
  );
};
