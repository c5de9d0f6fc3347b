import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BuiltInImageRequest, COST_HEADER, formatUnits, IMAGE_SIZES, ImagesResponse, ROUTES } from "@gateway-keys/contract";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import { parseBody } from "../http/validation";
import { MeteredCall } from "../pipeline/metered-call";
import { countTokens } from "../inference/tokens";
import { imageTokens } from "../models/builtin/images";
import type { ModelPricing } from "../metering/pricing";
import { imageCost } from "../metering/pricing";
import { relayMedia } from "../pipeline/media-relay";
import { routeOf, type RoutePluginOptions } from "./route-table";

const PIXELS: Record<(typeof IMAGE_SIZES)[number], { width: number; height: number }> = {
  "256x256": { width: 256, height: 256 },
  "512x512": { width: 512, height: 512 },
  "1024x1024": { width: 1024, height: 1024 },
};

/**
 * What a forwarded request's images cost: `n` at the price of its `size` (without one, the price
 * listed for `auto`, else for `1024x1024`); a size the model has no price for is refused naming
 * those it has.
 */
function forwardedImagesCost(pricing: ModelPricing, size: string | null | undefined, count: number): bigint {
  if (pricing.unit !== "images") throw new Error("a forwarded images model is priced per image");
  const priced = size ?? ("auto" in pricing.perImageMicros ? "auto" : "1024x1024");
  const cost = imageCost(pricing, priced, count);
  if (cost === undefined) {
    const sizes = Object.keys(pricing.perImageMicros).join(", ");
    throw new GatewayError("validation_failed", `Invalid fields: size: this model is priced for ${sizes}; send one of them.`, { param: "size" });
  }
  return cost;
}

/** `POST /v1/images/generations`: PNG images as `b64_json` from a built-in model; a forwarded model's answer as its provider sent it. */
export const imagesRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.imageGenerations, { bodyLimit: 4 * 1024 * 1024 }),
    handler: async (request, reply) => {
      // A built-in model takes the fields it knows, checked before anything is metered.
      const builtIn = ctx.models.forwards(request.body.model) ? undefined : parseBody(BuiltInImageRequest, request.body);
      const call = new MeteredCall(ctx, reply, apiKeyOf(request), request.body.model, request.body.prompt);
      const model = await call.admit("images");
      if (model.forwarded) {
        const charge = forwardedImagesCost(model.pricing, request.body.size, request.body.n ?? 1);
        return relayMedia(call, model.forwarded, { path: "/images/generations", body: { json: request.body }, reserveMicros: charge, cost: () => charge }, reply);
      }
      const body = builtIn ?? parseBody(BuiltInImageRequest, request.body);
      const count = body.n ?? 1;
      const { width, height } = PIXELS[body.size ?? "1024x1024"];
      const bound = { inputTokens: countTokens(body.prompt), outputTokens: count * imageTokens(width, height) };
      const { result, costMicros } = await call.run(model, bound, async () => {
        const { images, usage } = await model.engine.generate(body.prompt, count, width, height);
        return { result: { images, usage }, usage, output: null };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      const { inputTokens, outputTokens } = result.usage;
      const answer: ImagesResponse = {
        created: Math.floor(ctx.now() / 1000),
        data: result.images.map((png) => ({ b64_json: png.toString("base64") })),
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { text_tokens: inputTokens, image_tokens: 0 },
          output_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
        },
      };
      return answer;
    },
  });
};
