import { MODERATION_CATEGORIES, type ModerationCategory } from "@gateway-keys/contract";
import type { ModerationEngine, ModerationVerdict } from "../../inference/engines";
import { countTokens } from "../../inference/tokens";

/**
 * Word lists per category: a rule-based stand-in, deliberately small and documented, so tests can
 * say exactly what is flagged. A text is flagged in a category when it contains one of its words
 * (whole words, any case); the score is 1 for a match and 0 otherwise.
 */
const RULES: Partial<Record<ModerationCategory, readonly string[]>> = {
  harassment: ["idiot", "loser", "stupid"],
  "harassment/threatening": ["i will hurt you", "you will regret"],
  hate: ["subhuman", "vermin"],
  illicit: ["counterfeit", "launder money"],
  "self-harm": ["hurt myself", "self-harm"],
  sexual: ["explicit sex"],
  violence: ["kill", "murder", "stab", "shoot"],
  "violence/graphic": ["gore", "dismember"],
};

const PATTERNS = new Map(
  Object.entries(RULES).map(([category, words]) => [category, new RegExp(`\\b(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})\\b`, "i")]),
);

function verdict(text: string): ModerationVerdict {
  const hits = MODERATION_CATEGORIES.map((category) => [category, PATTERNS.get(category)?.test(text) ?? false] as const);
  return {
    categories: Object.fromEntries(hits),
    scores: Object.fromEntries(hits.map(([category, hit]) => [category, hit ? 1 : 0])),
  };
}

export const ruleModerator: ModerationEngine = {
  async classify(texts) {
    return { verdicts: texts.map(verdict), usage: { inputTokens: texts.reduce((sum, text) => sum + countTokens(text), 0), outputTokens: 0 } };
  },
};
