import { MessagesTranslatable, type AnthropicContentBlock } from "@gateway-keys/contract";
import type { Conversation, ImagePart, ImageSource, Part, TextPart, Turn } from "../../text";
import { parsedArguments } from "../../client-wire";
import { readTranslatable, unsupportedField, untranslatable, type TranslationTarget } from "../../translation";
import { appendTurn } from "../../turns";
import { MESSAGES_FIELD_MEANINGS } from "./field-meanings";

type ImageBlock = Extract<AnthropicContentBlock, { type: "image" }>;

function imagePart(block: ImageBlock): ImagePart {
  const { source } = block;
  return { type: "image", source: source.type === "url" ? { kind: "url", url: source.url } : { kind: "base64", mediaType: source.media_type, data: source.data } };
}

function partOf(block: AnthropicContentBlock): Part {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return imagePart(block);
    case "tool_use":
      return { type: "tool_call", id: block.id, name: block.name, arguments: JSON.stringify(block.input) };
    case "tool_result": {
      const content: (TextPart | ImagePart)[] =
        block.content === undefined ? [] : typeof block.content === "string" ? [{ type: "text", text: block.content }] : block.content.map((piece) => (piece.type === "text" ? { type: "text", text: piece.text } : imagePart(piece)));
      return { type: "tool_result", callId: block.tool_use_id, content, isError: block.is_error === true };
    }
  }
}

/** A Messages request as a conversation. */
export function readMessagesRequest(body: unknown, target: TranslationTarget): Conversation {
  const { request, dropped } = readTranslatable(MessagesTranslatable, body, target, MESSAGES_FIELD_MEANINGS);
  const turns: Turn[] = [];
  for (const message of request.messages) {
    appendTurn(turns, message.role, typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content.map(partOf));
  }
  const choice = request.tool_choice;
  const format = request.output_config?.format;
  return {
    system: request.system === undefined ? [] : [typeof request.system === "string" ? request.system : request.system.map((block) => block.text).join("")],
    turns,
    tools: (request.tools ?? []).map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.input_schema, strict: tool.strict })),
    toolChoice:
      choice === undefined
        ? undefined
        : choice.type === "any"
          ? { mode: "required" }
          : choice.type === "tool"
            ? { mode: "tool", name: choice.name }
            : { mode: choice.type },
    parallelToolCalls: choice !== undefined && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true ? false : undefined,
    maxOutputTokens: request.max_tokens,
    stopSequences: request.stop_sequences ?? [],
    sampling: {
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.top_p !== undefined && { topP: request.top_p }),
      ...(request.top_k !== undefined && { topK: request.top_k }),
    },
    responseFormat: format ? { type: "json_schema", name: "output", schema: format.schema, strict: undefined } : undefined,
    user: request.metadata?.user_id ?? undefined,
    dropped: new Set(dropped),
  };
}

function sourceOf(source: ImageSource): Record<string, unknown> {
  return source.kind === "url" ? { type: "url", url: source.url } : { type: "base64", media_type: source.mediaType, data: source.data };
}

function blockOf(part: Part, path: string, target: TranslationTarget, dropped: Set<string>): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      // The wire has no detail setting: a hint, named. (Readers leave it out for this wire; a
      // conversation read for another route's target may still hold one.)
      if (part.detail !== undefined && part.detail !== "auto") dropped.add(`${path}.detail`);
      return { type: "image", source: sourceOf(part.source) };
    case "tool_call": {
      let input: Record<string, unknown>;
      try {
        input = parsedArguments(part.arguments);
      } catch {
        untranslatable(`${path}.arguments`, target, "tool call arguments must be a JSON object there");
      }
      return { type: "tool_use", id: part.id, name: part.name, input };
    }
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: part.callId,
        content: part.content.map((piece, index) => blockOf(piece, `${path}.content[${index}]`, target, dropped)),
        ...(part.isError && { is_error: true }),
      };
  }
}

/** A conversation as a Messages body for an Anthropic-wire provider (`max_tokens` always set: the wire requires it). */
export function writeMessagesRequest(conversation: Conversation, stream: boolean, target: TranslationTarget): Record<string, unknown> {
  const { sampling, dropped } = conversation;
  // Each of these is refused, or left out (and named) on a model that drops unsupported fields.
  if (sampling.seed !== undefined) unsupportedField("seed", target, "it has no seed", dropped);
  if (sampling.presencePenalty !== undefined) unsupportedField("presence_penalty", target, "it has no presence penalty", dropped);
  if (sampling.frequencyPenalty !== undefined) unsupportedField("frequency_penalty", target, "it has no frequency penalty", dropped);
  const format = conversation.responseFormat;
  if (format?.type === "json_object") unsupportedField("response_format", target, "it has JSON output only with a schema (json_schema)", dropped);
  const choice = conversation.toolChoice;
  let noParallel = conversation.parallelToolCalls === false && conversation.tools.length > 0;
  if (noParallel && choice?.mode === "none") {
    unsupportedField("parallel_tool_calls", target, "it cannot forbid parallel calls while calling no tool", dropped);
    noParallel = false;
  }
  const toolChoice =
    choice === undefined
      ? noParallel
        ? { type: "auto" }
        : undefined
      : choice.mode === "required"
        ? { type: "any" }
        : choice.mode === "tool"
          ? { type: "tool", name: choice.name }
          : { type: choice.mode };
  return {
    max_tokens: conversation.maxOutputTokens,
    ...(conversation.system.length > 0 && { system: conversation.system.join("\n") }),
    messages: conversation.turns.map((turn, turnIndex) => ({
      role: turn.role,
      content: turn.parts.map((part, index) => blockOf(part, `messages[${turnIndex}].content[${index}]`, target, dropped)),
    })),
    ...(conversation.stopSequences.length > 0 && { stop_sequences: conversation.stopSequences }),
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.topP !== undefined && { top_p: sampling.topP }),
    ...(sampling.topK !== undefined && { top_k: sampling.topK }),
    ...(conversation.tools.length > 0 && {
      tools: conversation.tools.map((tool) => ({
        name: tool.name,
        ...(tool.description !== undefined && { description: tool.description }),
        input_schema: tool.parameters,
        ...(tool.strict !== undefined && { strict: tool.strict }),
      })),
    }),
    ...(toolChoice && { tool_choice: noParallel && toolChoice.type !== "none" ? { ...toolChoice, disable_parallel_tool_use: true } : toolChoice }),
    ...(format?.type === "json_schema" && { output_config: { format: { type: "json_schema", schema: format.schema } } }),
    ...(conversation.user !== undefined && { metadata: { user_id: conversation.user } }),
    ...(stream && { stream: true }),
  };
}
