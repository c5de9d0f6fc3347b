import { BuiltInEmbeddingsRequest, type EmbeddingsRequest, type EmbeddingsResponse } from "@gateway-keys/contract";
import { GatewayError } from "../../../errors";
import { parseBody } from "../../../http/validation";
import { costOf } from "../../../metering/pricing";
import { answerJson, type MediaAnswer, type MediaWire } from "../../media-wire";
import { embeddingsInputTokensBound } from "../../input-bound";
import { countTokens } from "../../tokens";

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

type Parsed = BuiltInEmbeddingsRequest & { texts: string[] };

/** `POST /v1/embeddings`: one vector per input text, as floats or base64. */
export const EMBEDDINGS: MediaWire<"embeddings", EmbeddingsRequest, Parsed, Float32Array[]> = {
  family: "embeddings",
  requestedModel: (body) => body.model,
  read(body, forwarded) {
    if (forwarded) return { modelId: body.model, logged: typeof body.input === "string" ? body.input : JSON.stringify(body.input) };
    const parsed = parseBody(BuiltInEmbeddingsRequest, body);
    const texts = typeof parsed.input === "string" ? [parsed.input] : parsed.input;
    return { modelId: body.model, logged: texts.join("\n"), parsed: { ...parsed, texts } };
  },
  forward(body, model) {
    const estimate = inputTokensOf(body.input);
    // The provider's count when it gives one, else the gateway's.
    const inputTokens = (answer: MediaAnswer) => (answerJson(answer)?.usage as { prompt_tokens?: number } | undefined)?.prompt_tokens ?? estimate;
    return {
      path: "/embeddings",
      body: { json: body },
      // The most any tokenizer counts, so the provider's count is charged in full (the rate limit counts the estimate).
      reserveMicros: costOf(model.pricing, { inputTokens: Math.max(estimate, embeddingsInputTokensBound(body.input)), outputTokens: 0 }),
      cost: (answer) => costOf(model.pricing, { inputTokens: inputTokens(answer), outputTokens: 0 }),
      tokens: { reserved: estimate, used: inputTokens },
    };
  },
  bound(parsed, model) {
    if (parsed.dimensions !== undefined && parsed.dimensions > model.engine.dimensions) {
      throw new GatewayError("validation_failed", `Invalid fields: dimensions: must be at most ${model.engine.dimensions} for model ${JSON.stringify(model.id)}.`, {
        param: "dimensions",
      });
    }
    return { inputTokens: parsed.texts.reduce((sum, text) => sum + countTokens(text), 0), outputTokens: 0 };
  },
  async run(parsed, model) {
    const { vectors, usage } = await model.engine.embed(parsed.texts, parsed.dimensions);
    return { result: vectors, usage, output: null };
  },
  answer(vectors, parsed, model) {
    const inputTokens = parsed.texts.reduce((sum, text) => sum + countTokens(text), 0);
    const answer: EmbeddingsResponse = {
      object: "list",
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: parsed.encoding_format === "base64" ? toBase64(vector) : Array.from(vector),
      })),
      model: model.id,
      usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
    };
    return { json: answer };
  },
};
