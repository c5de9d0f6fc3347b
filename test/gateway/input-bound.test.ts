/**
 * The bound a spend reservation holds for a forwarded model's input (gateway/src/inference/input-bound.ts)
 * checked against real tokenizers on hostile text: OpenAI's o200k and cl100k (byte-level BPE, and
 * its chat format's markers) and Anthropic's published Claude tokenizer (BPE after NFKC) — none
 * counts more tokens than the bound.
 */
import { getTokenizer } from "@anthropic-ai/tokenizer";
import fc from "fast-check";
import { encode as o200k, encodeChat } from "gpt-tokenizer";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { embeddingsInputTokensBound, textRequestTokensBound, textTokensBound, TOKENS_PER_EMBEDDED_TEXT } from "@gateway-keys/gateway/dist/inference/input-bound";

/** Text that tokenizers split finely or that grows under normalisation. */
const HOSTILE = [
  "ﷺ".repeat(40), // NFKC: 3 bytes → 33 each
  "㍻㍼㍽", // NFKC: squared era names → two CJK characters each
  "e\u0301\u0302\u0303\u0304".repeat(20), // stacked combining marks
  "👩‍👩‍👧‍👦🏳️‍🌈🧑🏽‍🚀".repeat(10), // ZWJ sequences
  "\u{10FFFF}\u{E0001}\u{1D11E}".repeat(10), // outside the basic plane
  "自然言語処理は面白い。".repeat(10),
  "a".repeat(500),
  " \t\n".repeat(100),
  "\u0000\u0001\u0002\u007f",
];

const text = fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 200 }), fc.constantFrom(...HOSTILE));

/** Claude's tokenizer, built once (its countTokens builds one per call): it reads NFKC text, as its countTokens does. */
const claude = getTokenizer();
afterAll(() => claude.free());
const claudeTokens = (sample: string) => claude.encode(sample.normalize("NFKC"), "all").length;

/** Tokens of a text by each tokenizer. */
const counts = (sample: string) => [o200k(sample).length, cl100k(sample).length, claudeTokens(sample)];

test("no tokenizer counts more tokens in a text than its bound", () => {
  for (const sample of HOSTILE) expect(counts(sample).filter((count) => count > textTokensBound(sample))).toEqual([]);
  fc.assert(
    fc.property(text, (sample) => counts(sample).every((count) => count <= textTokensBound(sample))),
    { numRuns: 300 },
  );
});

test("NFKC is why a text counts its normalised form: Claude's tokenizer counts more tokens in ﷺ than it has bytes", () => {
  const sample = "ﷺ".repeat(40);
  expect(claudeTokens(sample)).toBeGreaterThan(Buffer.byteLength(sample));
  expect(claudeTokens(sample)).toBeLessThanOrEqual(textTokensBound(sample));
});

test("a chat request as OpenAI counts it, message markers and the reply's priming included, is within its bound", () => {
  const message = fc.record({ role: fc.constantFrom("system" as const, "user" as const, "assistant" as const), content: text });
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), (messages) => encodeChat(messages, "gpt-4o").length <= textRequestTokensBound({ model: "m", messages })),
    { numRuns: 200 },
  );
  // The least JSON around the most markers: empty messages.
  const empty = Array.from({ length: 50 }, () => ({ role: "user" as const, content: "" }));
  expect(encodeChat(empty, "gpt-4o").length).toBeLessThanOrEqual(textRequestTokensBound({ model: "m", messages: empty }));
});

test("an embeddings input is bounded text by text, with room for markers around each", () => {
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) =>
      embeddingsInputTokensBound(texts) >= texts.reduce((sum, item) => sum + Math.max(...counts(item)) + TOKENS_PER_EMBEDDED_TEXT, 0),
    ),
    { numRuns: 100 },
  );
  expect(embeddingsInputTokensBound([[1, 2, 3], [4, 5]])).toBe(5 + 2 * TOKENS_PER_EMBEDDED_TEXT);
});

test("an image part counts its allowance, not its bytes; declared tools add the tool prompt's allowance", () => {
  const image = { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(100_000)}` } };
  const withImage = textRequestTokensBound({ model: "m", messages: [{ role: "user", content: [image] }] }, 2000);
  expect(withImage).toBeGreaterThanOrEqual(2000);
  expect(withImage).toBeLessThan(2200);
  const plain = { model: "m", messages: [{ role: "user", content: "hi" }] };
  const tool = { type: "function", function: { name: "f", parameters: { type: "object" } } };
  expect(textRequestTokensBound({ ...plain, tools: [tool] }) - textRequestTokensBound(plain)).toBe(1000 + Buffer.byteLength(`,"tools":[${JSON.stringify(tool)}]`));
  const computer = { type: "computer_20250124", name: "computer", display_width_px: 1024, display_height_px: 768 };
  expect(textRequestTokensBound({ ...plain, tools: [computer] }) - textRequestTokensBound(plain)).toBe(2000 + Buffer.byteLength(`,"tools":[${JSON.stringify(computer)}]`));
});
