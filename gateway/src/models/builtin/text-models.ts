import { countTokens, tokenPieces } from "../../inference/tokens";
import { promptText, type FinishReason, type TextCompletion, type TextDelta, type TextEngine, type TextPrompt } from "../../inference/text";

/**
 * A local, deterministic text model from a function of the last user turn. Around it, what every
 * model does: stop at a stop sequence, stop at `maxOutputTokens`, count tokens, and stream the
 * answer token by token.
 */
export function localTextEngine(answer: (lastUserText: string) => string): TextEngine {
  const completionOf = (prompt: TextPrompt): TextCompletion => {
    const lastUser = [...prompt.turns].reverse().find((turn) => turn.role === "user")?.text ?? "";
    let text = answer(lastUser);
    let finish: FinishReason = "end";
    let stopSequence: string | null = null;
    for (const sequence of prompt.stopSequences) {
      const at = sequence === "" ? -1 : text.indexOf(sequence);
      if (at >= 0 && (stopSequence === null || at < text.indexOf(stopSequence))) {
        stopSequence = sequence;
      }
    }
    if (stopSequence !== null) {
      text = text.slice(0, text.indexOf(stopSequence));
      finish = "stop_sequence";
    }
    const pieces = tokenPieces(text);
    if (pieces.length > prompt.maxOutputTokens) {
      text = pieces.slice(0, prompt.maxOutputTokens).join("");
      finish = "length";
      stopSequence = null;
    }
    return { text, finish, stopSequence, usage: { inputTokens: countTokens(promptText(prompt)), outputTokens: countTokens(text) } };
  };
  return {
    complete: async (prompt) => completionOf(prompt),
    async *stream(prompt, signal): AsyncIterable<TextDelta> {
      const completion = completionOf(prompt);
      for (const piece of tokenPieces(completion.text)) {
        if (signal.aborted) return;
        yield { kind: "text", text: piece };
        // A real model's tokens arrive over time: let the event loop breathe between them.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      yield { kind: "end", completion };
    },
  };
}

/** Characters are Unicode code points, so an emoji counts once. */
function countCharacters(text: string): number {
  return Array.from(text).length;
}

/** The built-in chat models: stand-ins that make the gateway around them (auth, policies, metering) testable offline. */
export const BUILT_IN_TEXT_MODELS = [
  { id: "echo-1", description: "Answers with the last user message unchanged.", engine: localTextEngine((text) => text) },
  {
    id: "reverse-1",
    description: "Answers with the last user message, its characters in reverse order.",
    engine: localTextEngine((text) => Array.from(text).reverse().join("")),
  },
  {
    id: "count-1",
    description: "Answers with the number of characters and words of the last user message.",
    engine: localTextEngine((text) => `${countCharacters(text)} characters, ${text.split(/\s+/).filter(Boolean).length} words`),
  },
] as const;
