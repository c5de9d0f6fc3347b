import { isEmpty, type FieldMeaning } from "../../translation";

/**
 * Messages fields a translation has no counterpart for, and what they mean
 * (docs/operators/upstream.md#translation-by-meaning); any other field outside MessagesTranslatable
 * is lossy.
 */
export const MESSAGES_FIELD_MEANINGS: readonly FieldMeaning[] = [
  // Tool input streams in pieces on every target (`@ai-sdk/anthropic` sets this on every tool).
  { path: ["tools", "*", "eager_input_streaming"], meaning: "inert" },
  // Prompt-cache markers: the answer is the same without them.
  { path: ["tools", "*", "cache_control"], meaning: "hint" },
  { path: ["system", "*", "cache_control"], meaning: "hint" },
  { path: ["messages", "*", "content", "*", "cache_control"], meaning: "hint" },
  { path: ["messages", "*", "content", "*", "content", "*", "cache_control"], meaning: "hint" },
  { path: ["messages", "*", "content", "*", "citations"], meaning: "inert", when: isEmpty },
  // Filled (a replayed answer's), citations describe where the text came from, not what the next
  // answer should do: the text carries what was said, so they are a hint.
  { path: ["messages", "*", "content", "*", "citations"], meaning: "hint", when: (_value, block) => block.type === "text" },
  { path: ["thinking"], meaning: "inert", when: (value) => value == null || (value as { type?: unknown }).type === "disabled" },
  { path: ["mcp_servers"], meaning: "inert", when: isEmpty },
  { path: ["service_tier"], meaning: "hint" },
];
