import { isEmpty, type FieldMeaning } from "../../translation";

const isFalse = (value: unknown) => value === false || value == null;

/**
 * Chat Completions fields a translation has no counterpart for, and what they mean
 * (docs/operators/upstream.md#translation-by-meaning); any other field outside
 * ChatCompletionTranslatable is lossy.
 */
export const CHAT_FIELD_MEANINGS: readonly FieldMeaning[] = [
  // A tool message's name repeats what its tool_call_id already says (LangChain sends it).
  { path: ["messages", "*", "name"], meaning: "inert", when: (_value, message) => message.role === "tool" },
  // A participant's name on another message tells speakers of one role apart: a hint.
  { path: ["messages", "*", "name"], meaning: "hint" },
  { path: ["messages", "*", "function_call"], meaning: "inert", when: (value) => value == null },
  { path: ["messages", "*", "audio"], meaning: "inert", when: (value) => value == null },
  // A replayed answer's citations describe the text that was said, not what the next answer
  // should do: empty they ask for nothing, filled they are a hint (the text carries what was said).
  { path: ["messages", "*", "annotations"], meaning: "inert", when: isEmpty },
  { path: ["messages", "*", "annotations"], meaning: "hint", when: (_value, message) => message.role === "assistant" },
  // The openai client's stream helper (`finalChatCompletion()`) and `chat.completions.parse()` add
  // their own reading of the content and of a call's arguments: it repeats what is carried.
  { path: ["messages", "*", "parsed"], meaning: "inert", when: (_value, message) => message.role === "assistant" },
  { path: ["messages", "*", "tool_calls", "*", "function", "parsed_arguments"], meaning: "inert" },
  // A call assembled from a stream's deltas keeps their `index`: its place in the list, which the list already says.
  { path: ["messages", "*", "tool_calls", "*", "index"], meaning: "inert", when: (value) => value == null || Number.isInteger(value) },
  { path: ["logprobs"], meaning: "inert", when: isFalse },
  { path: ["top_logprobs"], meaning: "inert", when: (value) => value == null || value === 0 },
  { path: ["logit_bias"], meaning: "inert", when: isEmpty },
  { path: ["store"], meaning: "inert", when: isFalse },
  { path: ["modalities"], meaning: "inert", when: (value) => Array.isArray(value) && value.every((modality) => modality === "text") },
  { path: ["functions"], meaning: "inert", when: isEmpty },
  { path: ["verbosity"], meaning: "inert", when: (value) => value == null || value === "medium" },
  { path: ["metadata"], meaning: "hint" },
  { path: ["service_tier"], meaning: "hint" },
  { path: ["prompt_cache_key"], meaning: "hint" },
  { path: ["prompt_cache_retention"], meaning: "hint" },
  { path: ["safety_identifier"], meaning: "hint" },
  { path: ["stream_options", "include_obfuscation"], meaning: "hint" },
];
