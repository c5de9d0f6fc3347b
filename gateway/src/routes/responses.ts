import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatUnits, NoQuery, ResponseObject, ResponsesRequest } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { apiKeyOf } from "../context";
import { newId } from "../crypto";
import { GatewayError } from "../errors";
import { costOf, countCharacters } from "../models/catalog";
import { logEntryFor } from "../policies/logging-policy";
import { modelAllowed } from "../policies/model-policy";
import type { RequestOutcome } from "../store/types";
import type { RouteOptions } from "./account-keys";

/**
 * `POST /v1/responses`: every request passes the key's policies in order (model policy, then a
 * spend reservation of the most the request can cost), runs the model, settles the actual cost and
 * writes its log row, all before the answer leaves.
 */
export const responsesRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  app.post(
    "/responses",
    { onRequest: [requireApiKey(ctx)], schema: { querystring: NoQuery, body: ResponsesRequest, response: { 200: ResponseObject } } },
    async (request): Promise<ResponseObject> => {
      const key = apiKeyOf(request);
      const { model: modelId, input } = request.body;
      const now = ctx.now();
      const refuse = async (error: GatewayError, outcome: Exclude<RequestOutcome, "succeeded">): Promise<never> => {
        const entry = logEntryFor(key, { model: modelId, status: error.statusCode, costMicros: 0n, input, output: null }, now);
        await ctx.spend.recordUncharged(entry, outcome);
        throw error;
      };

      const model = ctx.models.get(modelId);
      if (!model) {
        return refuse(
          new GatewayError("model_not_found", `No model ${JSON.stringify(modelId)}; GET /v1/models lists the models.`, { param: "model" }),
          "failed",
        );
      }
      if (!modelAllowed(key, modelId)) {
        return refuse(
          new GatewayError("model_not_allowed", `This key's model policy does not allow ${JSON.stringify(modelId)}.`, { param: "model" }),
          "rejected",
        );
      }

      // Reserve the most this request can cost, so concurrent requests can never overshoot the limit
      // between their checks; settle to the actual cost once the model has answered.
      const inputCharacters = countCharacters(input);
      const maxCostMicros = costOf(model, inputCharacters, model.maxOutputCharacters(input));
      const reservation = await ctx.spend.reserve(key, maxCostMicros);
      if (!reservation) {
        return refuse(
          new GatewayError(
            "spend_limit_reached",
            `This request could cost up to ${formatUnits(maxCostMicros)} units, more than is left under the key's spend limit; raise spendPolicy.limitUnits to continue.`,
          ),
          "rejected",
        );
      }

      let text: string;
      try {
        text = model.generate(input);
      } catch (error) {
        const entry = logEntryFor(key, { model: modelId, status: 500, costMicros: 0n, input, output: null }, now);
        await ctx.spend.settle(reservation, entry, "failed");
        throw error;
      }
      const outputCharacters = countCharacters(text);
      const costMicros = costOf(model, inputCharacters, outputCharacters);
      // Answered only once the charge is committed: no response is ever acknowledged unbilled.
      await ctx.spend.settle(reservation, logEntryFor(key, { model: modelId, status: 200, costMicros, input, output: text }, now), "succeeded");

      return {
        id: newId("resp"),
        object: "response",
        model: modelId,
        output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
        usage: { inputCharacters, outputCharacters, costUnits: formatUnits(costMicros) },
      };
    },
  );
};
