import { BuiltInImageRequest, IMAGE_SIZES, type ImageGenerationRequest, type ImagesResponse } from "@gateway-keys/contract";
import { GatewayError } from "../../../errors";
import { parseBody } from "../../../http/validation";
import { imageCost, type ModelPricing } from "../../../metering/pricing";
import type { MediaWire } from "../../media-wire";
import type { TextUsage } from "../../text";
import { countTokens } from "../../tokens";

const PIXELS: Record<(typeof IMAGE_SIZES)[number], { width: number; height: number }> = {
  "256x256": { width: 256, height: 256 },
  "512x512": { width: 512, height: 512 },
  "1024x1024": { width: 1024, height: 1024 },
};

/** Output tokens an image counts: one per 32×32 tile (a 1024×1024 image is 1024 tokens). */
export function imageTokens(width: number, height: number): number {
  return Math.ceil((width * height) / 1024);
}

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

type Parsed = BuiltInImageRequest & { count: number; width: number; height: number };

/** `POST /v1/images/generations`: PNG images as `b64_json` from a built-in model; a forwarded model's answer as its provider sent it. */
export const IMAGE_GENERATIONS: MediaWire<"images", ImageGenerationRequest, Parsed, { images: Buffer[]; usage: TextUsage }> = {
  family: "images",
  requestedModel: (body) => body.model,
  read(body, forwarded) {
    if (forwarded) return { modelId: body.model, logged: body.prompt };
    const parsed = parseBody(BuiltInImageRequest, body);
    return { modelId: body.model, logged: body.prompt, parsed: { ...parsed, count: parsed.n ?? 1, ...PIXELS[parsed.size ?? "1024x1024"] } };
  },
  forward(body, model) {
    const charge = forwardedImagesCost(model.pricing, body.size, body.n ?? 1);
    return { path: "/images/generations", body: { json: body }, reserveMicros: charge, cost: () => charge };
  },
  bound: (parsed) => ({ inputTokens: countTokens(parsed.prompt), outputTokens: parsed.count * imageTokens(parsed.width, parsed.height) }),
  async run(parsed, model) {
    const { images, usage } = await model.engine.generate(parsed.prompt, parsed.count, parsed.width, parsed.height);
    return { result: { images, usage }, usage, output: null };
  },
  answer(result, _parsed, _model, nowMs) {
    const { inputTokens, outputTokens } = result.usage;
    const answer: ImagesResponse = {
      created: Math.floor(nowMs / 1000),
      data: result.images.map((png) => ({ b64_json: png.toString("base64") })),
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { text_tokens: inputTokens, image_tokens: 0 },
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
    };
    return { json: answer };
  },
};
