/**
 * The form a text request takes when it must change wire — a Chat Completions request to an
 * Anthropic provider, a Messages request to an OpenAI one — or is answered by a built-in model.
 * (A request to a provider of its own wire never takes it: it is relayed as sent, see
 * forwarding/relay.ts.) It holds what both provider wires can say; each wire's reader refuses,
 * by name, what it cannot hold, and each writer what its wire cannot say.
 */

export type ImageSource = { kind: "url"; url: string } | { kind: "base64"; mediaType: string; data: string };

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image"; source: ImageSource; detail?: "auto" | "low" | "high" };
/** A call of a declared tool; `arguments` is the JSON text of its input, as generated. */
export type ToolCallPart = { type: "tool_call"; id: string; name: string; arguments: string };
export type ToolResultPart = { type: "tool_result"; callId: string; content: (TextPart | ImagePart)[]; isError: boolean };
export type Part = TextPart | ImagePart | ToolCallPart | ToolResultPart;

/** One turn. System and developer text is in {@link Conversation.system}. */
export interface Turn {
  role: "user" | "assistant";
  parts: Part[];
}

export interface ToolDefinition {
  name: string;
  description: string | undefined;
  /** JSON Schema of the tool's input. */
  parameters: Record<string, unknown>;
  strict: boolean | undefined;
}

export type ToolChoice = { mode: "auto" } | { mode: "none" } | { mode: "required" } | { mode: "tool"; name: string };

export type ResponseFormat = { type: "json_object" } | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict: boolean | undefined };

/** Sampling settings; each wire's writer refuses those its wire has no field for. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

export interface Conversation {
  system: string[];
  turns: Turn[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice | undefined;
  /** `false` when the client forbade calling several tools at once. */
  parallelToolCalls: boolean | undefined;
  /** The most tokens to generate: the client's bound, else the one the gateway sets. */
  maxOutputTokens: number;
  stopSequences: string[];
  sampling: Sampling;
  responseFormat: ResponseFormat | undefined;
  /** An id of the end user, for the provider's abuse monitoring. */
  user: string | undefined;
  /**
   * The client's fields that were not carried — hints the target has no setting for and, on a
   * model that drops them, fields it cannot carry — as the client wrote their paths. Named to the
   * client in the `x-gateway-dropped-fields` header and in the request log.
   */
  dropped: Set<string>;
}

/** Why generation ended. */
export type FinishReason = "end" | "length" | "stop_sequence" | "tool_calls" | "content_filter" | "refusal";

export interface TextUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache, when it says (part of `inputTokens`). */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache, when it says (part of `inputTokens`). */
  cacheWriteInputTokens?: number;
}

export type AnswerPart = TextPart | ToolCallPart;

export interface TextCompletion {
  parts: AnswerPart[];
  finish: FinishReason;
  /** The stop sequence met, when `finish` is `stop_sequence`. */
  stopSequence: string | null;
  usage: TextUsage;
}

/**
 * What a text stream yields, in order: text pieces and tool calls (a `tool_call` opens one, its
 * `tool_arguments` pieces follow), then exactly one `end` with the whole answer and its usage.
 */
export type TextDelta =
  | { kind: "text"; text: string }
  | { kind: "tool_call"; id: string; name: string }
  | { kind: "tool_arguments"; text: string }
  | { kind: "end"; completion: TextCompletion };

/** A model that generates text: whole, or as a stream (which a client may stop by aborting `signal`). */
export interface TextEngine {
  /** Throws what {@link complete} would refuse to send (a field the route's wire cannot say), before anything is metered. */
  check?(conversation: Conversation): void;
  complete(conversation: Conversation, signal: AbortSignal): Promise<TextCompletion>;
  stream(conversation: Conversation, signal: AbortSignal): AsyncIterable<TextDelta>;
}

/** The text of an answer's text parts. */
export function answerText(parts: readonly AnswerPart[]): string {
  let text = "";
  for (const part of parts) if (part.type === "text") text += part.text;
  return text;
}

function partText(part: Part): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
      return "[image]";
    case "tool_call":
      return `[tool call ${part.name} ${part.arguments}]`;
    case "tool_result":
      return `[tool result ${part.content.map(partText).join("")}]`;
  }
}

/** The text of a turn: its parts joined, an image as `[image]`, tool calls and results labelled. */
export function turnText(turn: Turn): string {
  return turn.parts.map(partText).join("");
}

/**
 * The conversation as one text, for request logs, input-token estimates and models that read it
 * whole: the user message alone when it is the whole conversation, else one line per part.
 */
export function promptText(conversation: Pick<Conversation, "system" | "turns">): string {
  const { system, turns } = conversation;
  if (system.length === 0 && turns.length === 1 && turns[0]!.role === "user") return turnText(turns[0]!);
  const lines = system.length === 0 ? [] : [`system: ${system.join("\n")}`];
  for (const turn of turns) lines.push(`${turn.role}: ${turnText(turn)}`);
  return lines.join("\n");
}
