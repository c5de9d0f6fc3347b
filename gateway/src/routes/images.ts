import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { COST_HEADER, formatUnits, IMAGE_SIZES, ImageGenerationRequest, ImagesResponse, NoQuery } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { apiKeyOf } from "../context";
import { MeteredCall } from "../inference/metered-call";
import { countTokens } from "../inference/tokens";
import { imageTokens } from "../models/builtin/images";
import type { RouteOptions } from "./account-keys";

const PIXELS: Record<(typeof IMAGE_SIZES)[number], { width: number; height: number }> = {
  "256x256": { width: 256, height: 256 },
  "512x512": { width: 512, height: 512 },
  "1024x1024": { width: 1024, height: 1024 },
};

/** `POST /v1/images/generations`: PNG images as `b64_json`. */
export const imagesRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  app.post(
    "/images/generations",
    { onRequest: [requireApiKey(ctx)], bodyLimit: 4 * 1024 * 1024, schema: { querystring: NoQuery, body: ImageGenerationRequest, response: { 200: ImagesResponse } } },
    async (request, reply): Promise<ImagesResponse> => {
      const body = request.body;
      const count = body.n ?? 1;
      const { width, height } = PIXELS[body.size ?? "1024x1024"];
      const call = new MeteredCall(ctx, apiKeyOf(request), body.model, body.prompt);
      const model = await call.admit("images");
      const bound = { inputTokens: countTokens(body.prompt), outputTokens: count * imageTokens(width, height) };
      const { result, costMicros } = await call.run(model, bound, async () => {
        const { images, usage } = await model.engine.generate(body.prompt, count, width, height);
        return { result: { images, usage }, usage, output: null };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      const { inputTokens, outputTokens } = result.usage;
      return {
        created: Math.floor(ctx.now() / 1000),
        data: result.images.map((png) => ({ b64_json: png.toString("base64") })),
        usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      };
    },
  );
};
