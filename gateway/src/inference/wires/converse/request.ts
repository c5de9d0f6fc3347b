import type { Conversation, ImagePart, Part, ToolChoice } from "../../text";
import { parsedArguments } from "../../client-wire";
import { unsupportedField, untranslatable, type TranslationTarget } from "../../translation";

/**
 * Writes a conversation as an Amazon Bedrock Converse request (`POST /model/{modelId}/converse`
 * and `/converse-stream`: the same body). The model is a path segment, never a body field; the
 * kind (upstream/kinds/bedrock) puts it there. What Converse has no field for is judged by its
 * meaning, like every other translation (docs/operators/upstream.md#translation-by-meaning): a hint (an image's
 * detail, the end user's id) is left out and named in `conversation.dropped`; a lossy field is
 * refused by name, or left out and named on a model that drops unsupported fields; a part Converse
 * cannot hold (an image by link) is refused.
 */

/** The image formats a Converse image block names (`format`), by media type. */
const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function imageBlock(part: ImagePart, path: string, target: TranslationTarget, dropped: Set<string>): Record<string, unknown> {
  // No detail setting: a hint, named.
  if (part.detail !== undefined && part.detail !== "auto") dropped.add(`${path}.detail`);
  const { source } = part;
  if (source.kind === "url") untranslatable(path, target, "it takes images as bytes only: send the image inline (a data: URL or a base64 source), not a link");
  const format = IMAGE_FORMATS[source.mediaType.toLowerCase()];
  if (format === undefined) untranslatable(path, target, `it takes PNG, JPEG, GIF and WebP images only, not ${source.mediaType}`);
  // Converse's JSON carries an image's bytes as base64: the data as the client sent it.
  return { image: { format, source: { bytes: source.data } } };
}

function blockOf(part: Part, path: string, target: TranslationTarget, dropped: Set<string>): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "image":
      return imageBlock(part, path, target, dropped);
    case "tool_call": {
      let input: Record<string, unknown>;
      try {
        input = parsedArguments(part.arguments);
      } catch {
        untranslatable(`${path}.arguments`, target, "tool call arguments must be a JSON object there");
      }
      return { toolUse: { toolUseId: part.id, name: part.name, input } };
    }
    case "tool_result":
      return {
        toolResult: {
          toolUseId: part.callId,
          content: part.content.map((piece, index) => (piece.type === "text" ? { text: piece.text } : imageBlock(piece, `${path}.content[${index}]`, target, dropped))),
          ...(part.isError && { status: "error" }),
        },
      };
  }
}

/** Converse refuses a blank text block; one beside other blocks (a tool call's empty preamble) says nothing and is left out. */
function contentOf(parts: Part[], path: string, target: TranslationTarget, dropped: Set<string>): Record<string, unknown>[] {
  const said = parts.length > 1 ? parts.filter((part) => part.type !== "text" || part.text !== "") : parts;
  return said.map((part) => blockOf(part, `${path}[${parts.indexOf(part)}]`, target, dropped));
}

const hasToolBlocks = (conversation: Conversation) => conversation.turns.some((turn) => turn.parts.some((part) => part.type === "tool_call" || part.type === "tool_result"));

/** `toolConfig.toolChoice`; `null` when tools are to be left out altogether (choice `none` with no tool blocks to explain). */
function toolChoiceOf(choice: ToolChoice | undefined, conversation: Conversation, target: TranslationTarget): Record<string, unknown> | undefined | null {
  const { dropped } = conversation;
  switch (choice?.mode) {
    case undefined:
      return undefined;
    case "auto":
      return { auto: {} };
    case "required":
      return { any: {} };
    case "tool":
      return { tool: { name: choice.name } };
    case "none":
      // Without tools the model calls none: the same meaning, while no earlier call needs them declared.
      if (!hasToolBlocks(conversation)) return null;
      unsupportedField("tool_choice", target, "it has no tool choice none, and the conversation's tool calls need the tools declared", dropped);
      return undefined;
  }
}

/** A conversation as a Converse request body (`inferenceConfig.maxTokens` always set: the request's bound). */
export function writeConverseRequest(conversation: Conversation, target: TranslationTarget): Record<string, unknown> {
  const { sampling, dropped } = conversation;
  // Each of these is refused, or left out (and named) on a model that drops unsupported fields.
  if (sampling.topK !== undefined) unsupportedField("top_k", target, "it has top_k only as a model-specific field", dropped);
  if (sampling.seed !== undefined) unsupportedField("seed", target, "it has no seed", dropped);
  if (sampling.presencePenalty !== undefined) unsupportedField("presence_penalty", target, "it has no presence penalty", dropped);
  if (sampling.frequencyPenalty !== undefined) unsupportedField("frequency_penalty", target, "it has no frequency penalty", dropped);
  const format = conversation.responseFormat;
  if (format?.type === "json_object") unsupportedField("response_format", target, "it has JSON output only with a schema (json_schema)", dropped);
  if (conversation.parallelToolCalls === false && conversation.tools.length > 0) unsupportedField("parallel_tool_calls", target, "it has no setting that forbids parallel tool calls", dropped);
  // The end user's id is for the provider's abuse monitoring: the answer means the same without it (a hint).
  if (conversation.user !== undefined) dropped.add("user");
  const choice = conversation.tools.length > 0 ? toolChoiceOf(conversation.toolChoice, conversation, target) : undefined;
  const inferenceConfig = {
    maxTokens: conversation.maxOutputTokens,
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.topP !== undefined && { topP: sampling.topP }),
    ...(conversation.stopSequences.length > 0 && { stopSequences: conversation.stopSequences }),
  };
  return {
    messages: conversation.turns.map((turn, turnIndex) => ({ role: turn.role, content: contentOf(turn.parts, `messages[${turnIndex}].content`, target, dropped) })),
    ...(conversation.system.length > 0 && { system: conversation.system.map((text) => ({ text })) }),
    inferenceConfig,
    ...(conversation.tools.length > 0 &&
      choice !== null && {
        toolConfig: {
          tools: conversation.tools.map((tool) => ({
            toolSpec: {
              name: tool.name,
              ...(tool.description !== undefined && { description: tool.description }),
              inputSchema: { json: tool.parameters },
              ...(tool.strict !== undefined && { strict: tool.strict }),
            },
          })),
          ...(choice && { toolChoice: choice }),
        },
      }),
    ...(format?.type === "json_schema" && {
      // Converse takes the schema as JSON text.
      outputConfig: { textFormat: { type: "json_schema", structure: { jsonSchema: { name: format.name, schema: JSON.stringify(format.schema) } } } },
    }),
  };
}
