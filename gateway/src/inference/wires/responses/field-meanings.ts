import { isEmpty, type FieldMeaning } from "../../translation";

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
  { path: ["service_tier"], meaning: "hint" },
  { path: ["prompt_cache_key"], meaning: "hint" },
  { path: ["prompt_cache_retention"], meaning: "hint" },
  { path: ["safety_identifier"], meaning: "hint" },
  { path: ["stream_options", "include_obfuscation"], meaning: "hint" },
];
