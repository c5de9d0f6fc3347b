import { newId } from "../../crypto";
import { estimateConversationTokens } from "../../inference/input-estimate";
import type { Conversation, FinishReason, TextCompletion, TextDelta, TextEngine, ToolDefinition, Turn } from "../../inference/text";
import { countTokens, tokenPieces } from "../../inference/tokens";

/** The text a turn says: its text parts, and the text of the tool results it carries. */
function saidIn(turn: Turn | undefined): string {
  let text = "";
  for (const part of turn?.parts ?? []) {
    if (part.type === "text") text += part.text;
    else if (part.type === "tool_result") for (const piece of part.content) if (piece.type === "text") text += piece.text;
  }
  return text;
}

const lastUserTurn = (conversation: Conversation): Turn | undefined => [...conversation.turns].reverse().find((turn) => turn.role === "user");

/** A text answer cut at the first stop sequence it contains, then at the bound. */
function textCompletion(conversation: Conversation, answer: string): TextCompletion {
  let text = answer;
  let finish: FinishReason = "end";
  let stopSequence: string | null = null;
  for (const sequence of conversation.stopSequences) {
    const at = sequence === "" ? -1 : text.indexOf(sequence);
    if (at >= 0 && (stopSequence === null || at < text.indexOf(stopSequence))) stopSequence = sequence;
  }
  if (stopSequence !== null) {
    text = text.slice(0, text.indexOf(stopSequence));
    finish = "stop_sequence";
  }
  const pieces = tokenPieces(text);
  if (pieces.length > conversation.maxOutputTokens) {
    text = pieces.slice(0, conversation.maxOutputTokens).join("");
    finish = "length";
    stopSequence = null;
  }
  return { parts: [{ type: "text", text }], finish, stopSequence, usage: { inputTokens: estimateConversationTokens(conversation), outputTokens: countTokens(text) } };
}

/** Streams a completion as the wires do: text a token at a time, tool call arguments in a few pieces. */
async function* streamed(completion: TextCompletion, signal: AbortSignal): AsyncIterable<TextDelta> {
  // A real model's tokens arrive over time: let the event loop breathe between them.
  const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));
  for (const part of completion.parts) {
    const pieces = part.type === "text" ? tokenPieces(part.text) : [];
    if (part.type === "tool_call") {
      if (signal.aborted) return;
      yield { kind: "tool_call", id: part.id, name: part.name };
      for (let at = 0; at < part.arguments.length; at += 16) pieces.push(part.arguments.slice(at, at + 16));
    }
    for (const piece of pieces) {
      if (signal.aborted) return;
      yield part.type === "text" ? { kind: "text", text: piece } : { kind: "tool_arguments", text: piece };
      await breathe();
    }
  }
  yield { kind: "end", completion };
}

/** A built-in engine from a function of the conversation: whole, or streamed from the same answer. */
function localEngine(complete: (conversation: Conversation) => TextCompletion): TextEngine {
  return {
    complete: async (conversation) => complete(conversation),
    stream: (conversation, signal) => streamed(complete(conversation), signal),
  };
}

/**
 * A local, deterministic text model from a function of the last user turn's text. Around it, what
 * every model does: stop at a stop sequence, stop at `maxOutputTokens`, count tokens, stream.
 */
export function localTextEngine(answer: (lastUserText: string) => string): TextEngine {
  return localEngine((conversation) => textCompletion(conversation, answer(saidIn(lastUserTurn(conversation)))));
}

/** The arguments `tools-1` calls a tool with: the prompt itself when it is a JSON object, else the prompt as the schema's first property. */
function argumentsFrom(text: string, tool: ToolDefinition): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return JSON.stringify(parsed);
  } catch {
    // Not JSON: the prompt is the value of the first property.
  }
  const properties = tool.parameters.properties;
  const first = properties !== null && typeof properties === "object" ? Object.keys(properties)[0] : undefined;
  return JSON.stringify(first === undefined ? {} : { [first]: text });
}

/**
 * `tools-1`: calls a tool whenever it may — the one `tool_choice` names, else the first declared —
 * with arguments from the last user message; once the last user turn carries a tool's result, it
 * answers with that result's text. With no tools (or `tool_choice: "none"`) it echoes like echo-1.
 */
export const toolCallingEngine: TextEngine = localEngine((conversation) => {
  const last = conversation.turns[conversation.turns.length - 1];
  const answeringResult = last?.role === "user" && last.parts.some((part) => part.type === "tool_result");
  const choice = conversation.toolChoice;
  const tool = choice?.mode === "tool" ? conversation.tools.find((candidate) => candidate.name === choice.name) : conversation.tools[0];
  if (answeringResult || !tool || choice?.mode === "none") return textCompletion(conversation, saidIn(lastUserTurn(conversation)));
  const pieces = tokenPieces(argumentsFrom(saidIn(lastUserTurn(conversation)), tool));
  const cut = pieces.length > conversation.maxOutputTokens;
  const args = pieces.slice(0, conversation.maxOutputTokens).join("");
  return {
    parts: [{ type: "tool_call", id: newId("call"), name: tool.name, arguments: args }],
    finish: cut ? "length" : "tool_calls",
    stopSequence: null,
    usage: { inputTokens: estimateConversationTokens(conversation), outputTokens: countTokens(args) },
  };
});

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
  {
    id: "tools-1",
    description: "Calls the first declared tool (or the one tool_choice names) with the last user message as its arguments; answers with a tool's result once it has one.",
    engine: toolCallingEngine,
  },
] as const;
