import type { Conversation, ImagePart, Part, ToolChoice } from "../../text";
import { parsedArguments } from "../../client-wire";
import { untranslatable, type TranslationTarget } from "../../translation";

/**
 * Writes a conversation as an Amazon Bedrock Converse request (`POST /model/{modelId}/converse`
 * and `/converse-stream`: the same body). The model is a path segment, never a body field; the
 * kind (upstream/kinds/bedrock) puts it there. What Converse has no field for is refused by name
 * through the translation's helpers, like every other translation.
 */

/** The image formats a Converse image block names (`format`), by media type. */
const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function imageBlock(part: ImagePart, path: string, target: TranslationTarget): Record<string, unknown> {
  if (part.detail !== undefined && part.detail !== "auto") untranslatable(`${path}.detail`, target, "it has no image detail setting");
  const { source } = part;
  if (source.kind === "url") untranslatable(path, target, "it takes images as bytes only: send the image inline (a data: URL or a base64 source), not a link");
  const format = IMAGE_FORMATS[source.mediaType.toLowerCase()];
  if (format === undefined) untranslatable(path, target, `it takes PNG, JPEG, GIF and WebP images only, not ${source.mediaType}`);
  // Converse's JSON carries an image's bytes as base64: the data as the client sent it.
  return { image: { format, source: { bytes: source.data } } };
}

function blockOf(part: Part, path: string, target: TranslationTarget): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "image":
      return imageBlock(part, path, target);
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
          content: part.content.map((piece, index) => (piece.type === "text" ? { text: piece.text } : imageBlock(piece, `${path}.content[${index}]`, target))),
          ...(part.isError && { status: "error" }),
        },
      };
  }
}

/** Converse refuses a blank text block; one beside other blocks (a tool call's empty preamble) says nothing and is left out. */
function contentOf(parts: Part[], path: string, target: TranslationTarget): Record<string, unknown>[] {
  const said = parts.length > 1 ? parts.filter((part) => part.type !== "text" || part.text !== "") : parts;
  return said.map((part) => blockOf(part, `${path}[${parts.indexOf(part)}]`, target));
}

const hasToolBlocks = (conversation: Conversation) => conversation.turns.some((turn) => turn.parts.some((part) => part.type === "tool_call" || part.type === "tool_result"));

/** `toolConfig.toolChoice`; `null` when tools are to be left out altogether (choice `none` with no tool blocks to explain). */
function toolChoiceOf(choice: ToolChoice | undefined, conversation: Conversation, target: TranslationTarget): Record<string, unknown> | undefined | null {
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
      if (hasToolBlocks(conversation)) untranslatable("tool_choice", target, "it has no tool choice none, and the conversation's tool calls need the tools declared");
      return null;
  }
}

/** A conversation as a Converse request body (`inferenceConfig.maxTokens` always set: the request's bound). */
export function writeConverseRequest(conversation: Conversation, target: TranslationTarget): Record<string, unknown> {
  const { sampling } = conversation;
  if (sampling.topK !== undefined) untranslatable("top_k", target, "it has top_k only as a model-specific field");
  if (sampling.seed !== undefined) untranslatable("seed", target, "it has no seed");
  if (sampling.presencePenalty !== undefined) untranslatable("presence_penalty", target, "it has no presence penalty");
  if (sampling.frequencyPenalty !== undefined) untranslatable("frequency_penalty", target, "it has no frequency penalty");
  if (conversation.user !== undefined) untranslatable("user", target, "it has no end-user field");
  const format = conversation.responseFormat;
  if (format?.type === "json_object") untranslatable("response_format", target, "it has JSON output only with a schema (json_schema)");
  if (conversation.parallelToolCalls === false && conversation.tools.length > 0) untranslatable("parallel_tool_calls", target, "it has no setting that forbids parallel tool calls");
  const choice = conversation.tools.length > 0 ? toolChoiceOf(conversation.toolChoice, conversation, target) : undefined;
  const inferenceConfig = {
    maxTokens: conversation.maxOutputTokens,
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.topP !== undefined && { topP: sampling.topP }),
    ...(conversation.stopSequences.length > 0 && { stopSequences: conversation.stopSequences }),
  };
  return {
    messages: conversation.turns.map((turn, turnIndex) => ({ role: turn.role, content: contentOf(turn.parts, `messages[${turnIndex}].content`, target) })),
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
