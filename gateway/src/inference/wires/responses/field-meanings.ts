import { isEmpty, type FieldMeaning } from "../../translation";

/** Whether the field is on a replayed answer's text part (`output_text`). */
const onOutputText = (_value: unknown, part: Record<string, unknown>) => part.type === "output_text";
/** …and holds nothing. */
const emptyOnOutputText = (value: unknown, part: Record<string, unknown>) => onOutputText(value, part) && isEmpty(value);

/**
 * Responses fields a translation has no counterpart for, and what they mean
 * (docs/operators/upstream.md#translation-by-meaning); any other field outside ResponsesTranslatable
 * is lossy.
 */
export const RESPONSES_FIELD_MEANINGS: readonly FieldMeaning[] = [
  // The OpenAI Agents SDK sends `include: []` on every request.
  { path: ["include"], meaning: "inert", when: isEmpty },
  { path: ["truncation"], meaning: "inert", when: (value) => value == null || value === "disabled" },
  { path: ["background"], meaning: "inert", when: (value) => value == null || value === false },
  { path: ["top_logprobs"], meaning: "inert", when: (value) => value == null || value === 0 },
  { path: ["reasoning"], meaning: "inert", when: (value) => isEmpty(value) || Object.values(value as object).every((setting) => setting == null) },
  { path: ["text", "verbosity"], meaning: "inert", when: (value) => value == null || value === "medium" },
  // A previous answer sent back as input (`input.concat(response.output)`): its text parts carry
  // `annotations` and `logprobs` — empty in every answer the gateway writes, so they ask for
  // nothing. Filled (a provider's citations, token probabilities) they describe the text that was
  // said, not anything the next answer should do: the text carries it, so they are hints.
  { path: ["input", "*", "content", "*", "annotations"], meaning: "inert", when: emptyOnOutputText },
  { path: ["input", "*", "content", "*", "logprobs"], meaning: "inert", when: emptyOnOutputText },
  { path: ["input", "*", "content", "*", "annotations"], meaning: "hint", when: onOutputText },
  { path: ["input", "*", "content", "*", "logprobs"], meaning: "hint", when: onOutputText },
  // The openai client's `finalResponse()` and `responses.parse()` add their own reading of a text
  // part and of a call's arguments: it repeats `text` and `arguments`, which are carried.
  { path: ["input", "*", "content", "*", "parsed"], meaning: "inert", when: onOutputText },
  { path: ["input", "*", "parsed_arguments"], meaning: "inert", when: (_value, item) => item.type === "function_call" },
  { path: ["service_tier"], meaning: "hint" },
  { path: ["prompt_cache_key"], meaning: "hint" },
  { path: ["prompt_cache_retention"], meaning: "hint" },
  { path: ["safety_identifier"], meaning: "hint" },
  { path: ["stream_options", "include_obfuscation"], meaning: "hint" },
];
