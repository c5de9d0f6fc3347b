import type { FastifyInstance } from "fastify";
import { formatUnits, ResponsesRequest, type ResponseObject } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { newId } from "../crypto";
import { GatewayError } from "../errors";
import { costOf, countCharacters } from "../models/catalog";
import { logEntryFor } from "../policies/logging-policy";
import { modelAllowed } from "../policies/model-policy";
import type { RouteOptions } from "./account-keys";

/**
 * `POST /v1/responses`: every request passes the key's policies in order (model policy, then a
 * spend reservation of the most the request can cost), runs the model, settles the actual cost and
 * writes its log row, all before the answer leaves.
 */
export async function responsesRoutes(app: FastifyInstance, { ctx }: RouteOptions): Promise<void> {
  app.post("/responses", { onRequest: [requireApiKey(ctx)], schema: { body: ResponsesRequest } }, async (request) => {
    const key = request.apiKey!;
    const { model: modelId, input } = request.body as ResponsesRequest;
    const now = ctx.now();
    const refuse = async (error: GatewayError, outcome: "rejected" | "failed"): Promise<never> => {
      const entry = logEntryFor(key, { model: modelId, status: error.statusCode, costMicros: 0n, input, output: null }, now);
      await ctx.store.recordUnbilledRequest(entry, outcome);
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
    const reservation = ctx.store.reserveSpend(key.id, maxCostMicros);
    if (reservation === "limit_reached") {
      return refuse(
        new GatewayError(
          "spend_limit_reached",
          `This request could cost up to ${formatUnits(maxCostMicros)} units, more than is left under the key's spend limit; raise spendPolicy.limitUnits to continue.`,
        ),
        "rejected",
      );
    }
    if (reservation === "inactive") {
      throw new GatewayError("invalid_credentials", "The API key was revoked or disabled while this request was being handled.");
    }

    let text: string;
    try {
      text = model.generate(input);
    } catch (error) {
      const entry = logEntryFor(key, { model: modelId, status: 500, costMicros: 0n, input, output: null }, now);
      await ctx.store.settleSpend(key.id, maxCostMicros, entry);
      throw error;
    }
    const outputCharacters = countCharacters(text);
    const costMicros = costOf(model, inputCharacters, outputCharacters);
    // Answered only once the charge is committed: no response is ever acknowledged unbilled.
    await ctx.store.settleSpend(key.id, maxCostMicros, logEntryFor(key, { model: modelId, status: 200, costMicros, input, output: text }, now));

    const response: ResponseObject = {
      id: newId("resp"),
      object: "response",
      model: modelId,
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
      usage: { inputCharacters, outputCharacters, costUnits: formatUnits(costMicros) },
    };
    return response;
  });
}
