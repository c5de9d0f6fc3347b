import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BuiltInEmbeddingsRequest, COST_HEADER, EmbeddingsResponse, formatUnits, ROUTES } from "@gateway-keys/contract";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import { parseBody } from "../http/validation";
import { MeteredCall } from "../pipeline/metered-call";
import { countTokens } from "../inference/tokens";
import { costOf } from "../metering/pricing";
import { answerJson, relayMedia } from "../pipeline/media-relay";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** Little-endian float32 bytes in base64: what the openai SDK asks for by default, and decodes. */
function toBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString("base64");
}

/** The input as the gateway counts it: texts by its token rule, a token array by its length. */
function inputTokensOf(input: unknown): number {
  if (typeof input === "string") return countTokens(input);
  if (typeof input === "number") return 1;
  return Array.isArray(input) ? input.reduce<number>((sum, item) => sum + inputTokensOf(item), 0) : 0;
}

/** `POST /v1/embeddings`: one vector per input text, as floats or base64. */
export const embeddingsRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.embeddings, { bodyLimit: 4 * 1024 * 1024 }),
    handler: async (request, reply) => {
      // A built-in model takes the fields it knows, checked before anything is metered.
      const builtIn = ctx.models.forwards(request.body.model) ? undefined : parseBody(BuiltInEmbeddingsRequest, request.body);
      const texts = builtIn === undefined ? [] : typeof builtIn.input === "string" ? [builtIn.input] : builtIn.input;
      const logged = builtIn === undefined ? (typeof request.body.input === "string" ? request.body.input : JSON.stringify(request.body.input)) : texts.join("\n");
      const call = new MeteredCall(ctx, reply, apiKeyOf(request), request.body.model, logged);
      const model = await call.admit("embeddings");
      if (model.forwarded) {
        const estimate = inputTokensOf(request.body.input);
        // The provider's count when it gives one, else the gateway's.
        const inputTokens = (answer: Parameters<typeof answerJson>[0]) =>
          (answerJson(answer)?.usage as { prompt_tokens?: number } | undefined)?.prompt_tokens ?? estimate;
        return relayMedia(call, model.forwarded, {
          path: "/embeddings",
          body: { json: request.body },
          reserveMicros: costOf(model.pricing, { inputTokens: estimate, outputTokens: 0 }),
          cost: (answer) => costOf(model.pricing, { inputTokens: inputTokens(answer), outputTokens: 0 }),
          tokens: { reserved: estimate, used: inputTokens },
        }, reply);
      }
      const body = builtIn ?? parseBody(BuiltInEmbeddingsRequest, request.body);
      const engine = model.engine;
      if (body.dimensions !== undefined && body.dimensions > engine.dimensions) {
        throw new GatewayError(
          "validation_failed",
          `Invalid fields: dimensions: must be at most ${engine.dimensions} for model ${JSON.stringify(model.id)}.`,
          { param: "dimensions" },
        );
      }
      const inputTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
      const { result, costMicros } = await call.run(model, { inputTokens, outputTokens: 0 }, async () => {
        const { vectors, usage } = await engine.embed(texts, body.dimensions);
        return { result: vectors, usage, output: null };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      const answer: EmbeddingsResponse = {
        object: "list",
        data: result.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? toBase64(vector) : Array.from(vector),
        })),
        model: model.id,
        usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
      };
      return answer;
    },
  });
};
