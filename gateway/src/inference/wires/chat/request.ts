import { ChatCompletionTranslatable, type ChatContentPart, type ChatMessageParam, type ChatToolChoice } from "@gateway-keys/contract";
import type { Conversation, ImagePart, ImageSource, Part, TextPart, ToolChoice, Turn } from "../../text";
import { readTranslatable, unsupportedField, untranslatable, type TranslationTarget } from "../../translation";
import { appendTurn } from "../../turns";
import { CHAT_FIELD_MEANINGS } from "./field-meanings";

type TextContent = string | { text: string }[];
const textOf = (content: TextContent): string => (typeof content === "string" ? content : content.map((part) => part.text).join(""));

/** An image URL as a source: a `data:` URL is the image itself, any other URL is fetched by the provider. */
export function imageSourceOf(url: string): ImageSource {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? { kind: "base64", mediaType: data[1]!, data: data[2]! } : { kind: "url", url };
}

export function imageUrlOf(source: ImageSource): string {
  return source.kind === "url" ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

/**
 * An image part's `detail`, where the target has a setting for it; elsewhere a detail other than
 * `auto` is a hint, named in `dropped` (the image goes without it).
 */
export function imageDetailFor(detail: ImagePart["detail"], path: string, target: TranslationTarget, dropped: string[]): Pick<ImagePart, "detail"> {
  if (detail === undefined) return {};
  if (target.imageDetail) return { detail };
  if (detail !== "auto") dropped.push(path);
  return {};
}

function partsOf(message: ChatMessageParam, path: string, target: TranslationTarget, dropped: string[]): Part[] {
  const userPart = (part: ChatContentPart, index: number): TextPart | ImagePart => {
    if (part.type === "text") return { type: "text", text: part.text };
    return { type: "image", source: imageSourceOf(part.image_url.url), ...imageDetailFor(part.image_url.detail, `${path}.content[${index}].image_url.detail`, target, dropped) };
  };
  switch (message.role) {
    case "system":
    case "developer":
      return [];
    case "user":
      return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content.map(userPart);
    case "assistant": {
      const parts: Part[] = [];
      const text = message.content == null ? "" : textOf(message.content);
      if (text !== "") parts.push({ type: "text", text });
      if (message.refusal) parts.push({ type: "text", text: message.refusal });
      for (const call of message.tool_calls ?? []) parts.push({ type: "tool_call", id: call.id, name: call.function.name, arguments: call.function.arguments });
      return parts;
    }
    case "tool":
      return [{ type: "tool_result", callId: message.tool_call_id, content: [{ type: "text", text: textOf(message.content) }], isError: false }];
  }
}

function toolChoiceOf(choice: ChatToolChoice | undefined): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { mode: choice };
  return { mode: "tool", name: choice.function.name };
}

/**
 * A Chat Completions request as a conversation. System and developer messages, wherever they
 * stand, form the system text; a `tool` message is a tool result in a user turn (consecutive turns
 * of one role merge, as the Messages wire wants results right after the calls).
 */
export function readChatRequest(body: unknown, target: TranslationTarget, boundWhenUnset: number): Conversation {
  const { request, dropped } = readTranslatable(ChatCompletionTranslatable, body, target, CHAT_FIELD_MEANINGS);
  const system: string[] = [];
  const turns: Turn[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === "system" || message.role === "developer") system.push(textOf(message.content));
    else appendTurn(turns, message.role === "assistant" ? "assistant" : "user", partsOf(message, `messages[${index}]`, target, dropped));
  });
  const format = request.response_format;
  return {
    system,
    turns,
    tools: (request.tools ?? []).map(({ function: tool }) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? { type: "object", properties: {} },
      strict: tool.strict ?? undefined,
    })),
    toolChoice: toolChoiceOf(request.tool_choice),
    parallelToolCalls: request.parallel_tool_calls,
    maxOutputTokens: request.max_completion_tokens ?? request.max_tokens ?? boundWhenUnset,
    stopSequences: request.stop == null ? [] : typeof request.stop === "string" ? [request.stop] : request.stop,
    sampling: {
      ...(request.temperature != null && { temperature: request.temperature }),
      ...(request.top_p != null && { topP: request.top_p }),
      ...(request.seed != null && { seed: request.seed }),
      ...(request.presence_penalty != null && { presencePenalty: request.presence_penalty }),
      ...(request.frequency_penalty != null && { frequencyPenalty: request.frequency_penalty }),
    },
    responseFormat:
      format === undefined || format.type === "text"
        ? undefined
        : format.type === "json_object"
          ? { type: "json_object" }
          : { type: "json_schema", name: format.json_schema.name, schema: format.json_schema.schema ?? {}, strict: format.json_schema.strict ?? undefined },
    user: request.user,
    dropped: new Set(dropped),
  };
}

function toolResultContent(part: Extract<Part, { type: "tool_result" }>, path: string, target: TranslationTarget): string {
  let text = "";
  for (const piece of part.content) {
    if (piece.type !== "text") untranslatable(path, target, "a tool message holds text only");
    text += piece.text;
  }
  // The wire has no error flag on a tool result: the text says it, so the model still knows.
  return part.isError ? `Error: ${text}` : text;
}

/**
 * A conversation as a Chat Completions body for an OpenAI-wire provider (its model travels beside
 * it): the bound as `max_completion_tokens`, and usage always asked of a stream (the gateway charges from it).
 */
export function writeChatRequest(conversation: Conversation, stream: boolean, target: TranslationTarget): Record<string, unknown> {
  const { sampling } = conversation;
  // The Chat Completions wire has no top_k: refused, or left out on a model that drops such fields.
  if (sampling.topK !== undefined) unsupportedField("top_k", target, "it has no top_k", conversation.dropped);
  const messages: Record<string, unknown>[] = conversation.system.map((text) => ({ role: "system", content: text }));
  conversation.turns.forEach((turn, turnIndex) => {
    const path = `messages[${turnIndex}].content`;
    if (turn.role === "assistant") {
      const text = turn.parts.filter((part) => part.type === "text").map((part) => part.text).join("");
      const calls = turn.parts.filter((part) => part.type === "tool_call");
      turn.parts.forEach((part, index) => {
        if (part.type === "image" || part.type === "tool_result") untranslatable(`${path}[${index}]`, target, `an assistant message cannot hold ${part.type === "image" ? "images" : "tool results"}`);
      });
      messages.push({
        role: "assistant",
        content: text === "" && calls.length > 0 ? null : text,
        ...(calls.length > 0 && { tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }),
      });
      return;
    }
    const content: Record<string, unknown>[] = [];
    turn.parts.forEach((part, index) => {
      if (part.type === "tool_result") messages.push({ role: "tool", tool_call_id: part.callId, content: toolResultContent(part, `${path}[${index}]`, target) });
      else if (part.type === "text") content.push({ type: "text", text: part.text });
      else if (part.type === "image") content.push({ type: "image_url", image_url: { url: imageUrlOf(part.source), ...(part.detail && { detail: part.detail }) } });
      else untranslatable(`${path}[${index}]`, target, "a user message cannot hold tool calls");
    });
    if (content.length === 1 && content[0]!.type === "text") messages.push({ role: "user", content: content[0]!.text });
    else if (content.length > 0) messages.push({ role: "user", content });
  });
  const choice = conversation.toolChoice;
  const format = conversation.responseFormat;
  return {
    messages,
    max_completion_tokens: conversation.maxOutputTokens,
    ...(conversation.stopSequences.length > 0 && { stop: conversation.stopSequences }),
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.topP !== undefined && { top_p: sampling.topP }),
    ...(sampling.seed !== undefined && { seed: sampling.seed }),
    ...(sampling.presencePenalty !== undefined && { presence_penalty: sampling.presencePenalty }),
    ...(sampling.frequencyPenalty !== undefined && { frequency_penalty: sampling.frequencyPenalty }),
    ...(conversation.tools.length > 0 && {
      tools: conversation.tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, ...(tool.description !== undefined && { description: tool.description }), parameters: tool.parameters, ...(tool.strict !== undefined && { strict: tool.strict }) },
      })),
    }),
    ...(choice && { tool_choice: choice.mode === "tool" ? { type: "function", function: { name: choice.name } } : choice.mode }),
    ...(conversation.parallelToolCalls !== undefined && conversation.tools.length > 0 && { parallel_tool_calls: conversation.parallelToolCalls }),
    ...(format && {
      response_format:
        format.type === "json_object"
          ? { type: "json_object" }
          : { type: "json_schema", json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined && { strict: format.strict }) } },
    }),
    ...(conversation.user !== undefined && { user: conversation.user }),
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  };
}
