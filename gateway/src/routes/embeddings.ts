import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { COST_HEADER, EmbeddingsRequest, EmbeddingsResponse, formatUnits, NoQuery } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import { MeteredCall } from "../inference/metered-call";
import { countTokens } from "../inference/tokens";
import type { RouteOptions } from "./account-keys";

/** Little-endian float32 bytes in base64: what the openai SDK asks for by default, and decodes. */
function toBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString("base64");
}

/** `POST /v1/embeddings`: one vector per input text, as floats or base64. */
export const embeddingsRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  app.post(
    "/embeddings",
    { onRequest: [requireApiKey(ctx)], bodyLimit: 4 * 1024 * 1024, schema: { querystring: NoQuery, body: EmbeddingsRequest, response: { 200: EmbeddingsResponse } } },
    async (request, reply): Promise<EmbeddingsResponse> => {
      const body = request.body;
      const texts = typeof body.input === "string" ? [body.input] : body.input;
      const call = new MeteredCall(ctx, apiKeyOf(request), body.model, texts.join("\n"));
      const model = await call.admit("embeddings");
      if (body.dimensions !== undefined && body.dimensions > model.engine.dimensions) {
        throw new GatewayError(
          "validation_failed",
          `Invalid fields: dimensions: must be at most ${model.engine.dimensions} for model ${JSON.stringify(model.id)}.`,
          { param: "dimensions" },
        );
      }
      const inputTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
      const { result, costMicros } = await call.run(model, { inputTokens, outputTokens: 0 }, async () => {
        const { vectors, usage } = await model.engine.embed(texts, body.dimensions);
        return { result: vectors, usage, output: null };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      return {
        object: "list",
        data: result.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? toBase64(vector) : Array.from(vector),
        })),
        model: model.id,
        usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
      };
    },
  );
};
