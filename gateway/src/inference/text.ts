/**
 * The one internal form of a text-generation request and its answer. Every text wire (Chat
 * Completions, Responses, Messages) is read into a {@link TextPrompt} and rendered from a
 * {@link TextCompletion} or a stream of {@link TextDelta}s, so a model behind any wire answers
 * on every wire.
 */

/** One conversation turn. System and developer text is in {@link TextPrompt.system}. */
export interface TextTurn {
  role: "user" | "assistant";
  text: string;
}

export interface TextPrompt {
  system: string | undefined;
  turns: TextTurn[];
  /** The most tokens to generate (already bounded by the model's maximum). */
  maxOutputTokens: number;
  stopSequences: string[];
}

/** Why generation ended: naturally, at `maxOutputTokens`, or at one of the stop sequences. */
export type FinishReason = "end" | "length" | "stop_sequence";

export interface TextUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface TextCompletion {
  text: string;
  finish: FinishReason;
  /** The stop sequence met, when `finish` is `stop_sequence`. */
  stopSequence: string | null;
  usage: TextUsage;
}

/** What a text stream yields: pieces of text, then exactly one end with the totals. */
export type TextDelta = { kind: "text"; text: string } | { kind: "end"; completion: TextCompletion };

/** A model that generates text: whole, or as a stream (which a client may stop by aborting `signal`). */
export interface TextEngine {
  complete(prompt: TextPrompt, signal: AbortSignal): Promise<TextCompletion>;
  stream(prompt: TextPrompt, signal: AbortSignal): AsyncIterable<TextDelta>;
}

/** The prompt as one text, for request logs and for models that read it whole. */
export function promptText(prompt: TextPrompt): string {
  if (prompt.system === undefined && prompt.turns.length === 1 && prompt.turns[0]!.role === "user") return prompt.turns[0]!.text;
  const lines = prompt.system === undefined ? [] : [`system: ${prompt.system}`];
  for (const turn of prompt.turns) lines.push(`${turn.role}: ${turn.text}`);
  return lines.join("\n");
}
