import { IMAGE_INPUT_TOKENS, IMAGE_TYPES } from "./input-estimate";

/**
 * The most input tokens a provider can count for a request, known before it is sent: what a spend
 * reservation holds for a forwarded model, so that the provider's own count is charged in full and
 * the key's limit still holds (docs/api/policies.md#how-a-reservation-bounds-each-familys-charge).
 *
 * Why bytes: the tokenizers behind these providers (byte-level BPE — OpenAI's, Anthropic's, Llama
 * 3's —, SentencePiece with byte fallback, WordPiece) each cut text into pieces of at least one
 * byte, so text of n UTF-8 bytes is at most n tokens (test/gateway/input-bound.test.ts checks
 * OpenAI's and Claude's published tokenizers on hostile text). What can add to that is bounded
 * apart: a tokenizer that normalises text first (NFKC turns "ﷺ", 3 bytes, into 33), so a text
 * counts the larger of its bytes and its NFKC form's; the tokens a provider adds around each piece
 * (begin and end markers, a message's role header, the reply's priming), covered by the JSON around
 * every text of a chat request and by an allowance per embedded text; images, at an allowance each;
 * and the hidden prompt a provider adds for declared tools, at an allowance.
 */

/** Tokens a provider adds around one embedded text (begin, end and prefix markers: 0 to 3 today). */
export const TOKENS_PER_EMBEDDED_TEXT = 8;
/** Tokens a provider adds to any text request: the reply's priming and one message's header (about 7 today). */
export const TOKENS_PER_TEXT_REQUEST = 32;
/**
 * Tokens a provider adds to a request that declares tools, and again for each tool it defines itself
 * (a tool whose `type` is neither `function` nor `custom`): above Anthropic's tool-use system prompt
 * (346 tokens; 530 on Claude 3 Opus) and its largest defined tool (computer use, 735).
 */
export const TOKENS_PER_TOOL_PROMPT = 1_000;

/** UTF-8 bytes of `text` or of its NFKC form, whichever is more: at least the tokens any tokenizer counts in it. */
export function textTokensBound(text: string): number {
  const bytes = Buffer.byteLength(text, "utf8");
  // Only text outside ASCII can change under NFKC.
  return bytes === text.length ? bytes : Math.max(bytes, Buffer.byteLength(text.normalize("NFKC"), "utf8"));
}

/** Whether a tool definition is one a provider defines itself (its prompt comes with it), not the client. */
const isProviderTool = (tool: unknown): boolean => {
  const type = (tool as { type?: unknown } | null)?.type;
  return typeof type === "string" && type !== "function" && type !== "custom";
};

/**
 * The most input tokens a text request (Chat Completions, Responses or Messages, as the client
 * sent it, whichever route serves it) can be counted: the bytes of its JSON with each image part
 * taken at `tokensPerImage` instead (the model's `inputTokensPerImage`: by default
 * {@link IMAGE_INPUT_TOKENS}) and each text at {@link textTokensBound}, plus
 * {@link TOKENS_PER_TEXT_REQUEST}, plus {@link TOKENS_PER_TOOL_PROMPT} when it declares tools and
 * for each tool a provider defines. Not bounded: what a provider reads from outside the request
 * (a stored previous response, a file by id, a server tool's search results).
 */
export function textRequestTokensBound(body: Record<string, unknown>, tokensPerImage = IMAGE_INPUT_TOKENS): number {
  let images = 0;
  let expanded = 0;
  const json = JSON.stringify(body, (_key, value: unknown) => {
    if (typeof value === "string") {
      expanded += textTokensBound(value) - Buffer.byteLength(value, "utf8");
      return value;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value) && IMAGE_TYPES.has((value as { type?: unknown }).type as string)) {
      images++;
      return null;
    }
    return value;
  });
  const tools = Array.isArray(body.tools) && body.tools.length > 0 ? (1 + body.tools.filter(isProviderTool).length) * TOKENS_PER_TOOL_PROMPT : 0;
  return Buffer.byteLength(json, "utf8") + expanded + images * tokensPerImage + TOKENS_PER_TEXT_REQUEST + tools;
}

/**
 * The most input tokens an embeddings request's `input` can be counted: each text at
 * {@link textTokensBound}, each token array at its length, each plus
 * {@link TOKENS_PER_EMBEDDED_TEXT}.
 */
export function embeddingsInputTokensBound(input: unknown): number {
  if (typeof input === "string") return textTokensBound(input) + TOKENS_PER_EMBEDDED_TEXT;
  if (!Array.isArray(input) || input.length === 0) return 0;
  if (input.every((item) => typeof item === "number")) return input.length + TOKENS_PER_EMBEDDED_TEXT;
  return input.reduce<number>((sum, item) => sum + embeddingsInputTokensBound(item), 0);
}
