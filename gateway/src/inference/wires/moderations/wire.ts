import { BuiltInModerationRequest, type ModerationRequest, type ModerationResponse } from "@gateway-keys/contract";
import { newId } from "../../../crypto";
import { parseBody } from "../../../http/validation";
import { costOf } from "../../../metering/pricing";
import type { ModerationVerdict } from "../../engines";
import { IMAGE_INPUT_TOKENS } from "../../input-estimate";
import type { MediaWire } from "../../media-wire";
import { countTokens } from "../../tokens";

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

type Parsed = BuiltInModerationRequest & { texts: string[] };

/** `POST /v1/moderations`: one verdict per input; without `model`, the family's first model. */
export const MODERATIONS: MediaWire<"moderation", ModerationRequest, Parsed, ModerationVerdict[]> = {
  family: "moderation",
  requestedModel: (body, defaultModel) => body.model ?? defaultModel,
  read(body, forwarded, defaultModel) {
    const modelId = body.model ?? defaultModel ?? "(none)";
    if (forwarded) return { modelId, logged: typeof body.input === "string" ? body.input : JSON.stringify(body.input) };
    const parsed = parseBody(BuiltInModerationRequest, body);
    const texts = typeof parsed.input === "string" ? [parsed.input] : parsed.input;
    return { modelId, logged: texts.join("\n"), parsed: { ...parsed, texts } };
  },
  forward(body, model) {
    const charge = costOf(model.pricing, { inputTokens: inputTokensOf(body.input), outputTokens: 0 });
    return { path: "/moderations", body: { json: body }, reserveMicros: charge, cost: () => charge };
  },
  bound: (parsed) => ({ inputTokens: parsed.texts.reduce((sum, text) => sum + countTokens(text), 0), outputTokens: 0 }),
  async run(parsed, model) {
    const { verdicts, usage } = await model.engine.classify(parsed.texts);
    return { result: verdicts, usage, output: JSON.stringify(verdicts.map((verdict) => verdict.categories)) };
  },
  answer(verdicts, _parsed, model) {
    const answer: ModerationResponse = {
      id: newId("modr"),
      model: model.id,
      results: verdicts.map((verdict) => ({
        flagged: Object.values(verdict.categories).some(Boolean),
        categories: verdict.categories,
        category_scores: verdict.scores,
        category_applied_input_types: Object.fromEntries(Object.keys(verdict.categories).map((category) => [category, ["text"]])),
      })),
    };
    return { json: answer };
  },
};
