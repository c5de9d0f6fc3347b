import { ResponsesTranslatable, type ResponseInputItem } from "@gateway-keys/contract";
import type { Conversation, ImagePart, TextPart, Turn } from "../../text";
import { imageDetailFor, imageSourceOf } from "../chat/request";
import { readTranslatable, type TranslationTarget } from "../../translation";
import { appendTurn } from "../../turns";
import { RESPONSES_FIELD_MEANINGS } from "./field-meanings";

type ContentPart = Extract<ResponseInputItem, { role: string }>["content"];

function partsOf(content: ContentPart, path: string, target: TranslationTarget, dropped: string[]): (TextPart | ImagePart)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part, index) =>
    part.type === "input_image"
      ? { type: "image", source: imageSourceOf(part.image_url), ...imageDetailFor(part.detail, `${path}[${index}].detail`, target, dropped) }
      : { type: "text", text: part.text },
  );
}

/**
 * A Responses request as a conversation: `instructions` and system/developer messages are the
 * system text; function calls join the assistant turn, their outputs the next user turn. No state
 * is kept between responses (docs/api/text.md#post-v1responses--responses): the whole conversation is in `input`.
 */
export function readResponsesRequest(body: unknown, target: TranslationTarget, boundWhenUnset: number): Conversation {
  const { request, dropped } = readTranslatable(ResponsesTranslatable, body, target, RESPONSES_FIELD_MEANINGS);
  const system = request.instructions == null ? [] : [request.instructions];
  const turns: Turn[] = [];
  if (typeof request.input === "string") {
    turns.push({ role: "user", parts: [{ type: "text", text: request.input }] });
  } else {
    request.input.forEach((item, index) => {
      if (item.type === "function_call") appendTurn(turns, "assistant", [{ type: "tool_call", id: item.call_id, name: item.name, arguments: item.arguments }]);
      else if (item.type === "function_call_output") {
        appendTurn(turns, "user", [{ type: "tool_result", callId: item.call_id, content: partsOf(item.output, `input[${index}].output`, target, dropped), isError: false }]);
      } else if (item.role === "system" || item.role === "developer") {
        system.push(partsOf(item.content, `input[${index}].content`, target, dropped).map((part) => (part.type === "text" ? part.text : "")).join(""));
      } else appendTurn(turns, item.role, partsOf(item.content, `input[${index}].content`, target, dropped));
    });
  }
  const choice = request.tool_choice;
  const format = request.text?.format;
  return {
    system,
    turns,
    tools: (request.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description ?? undefined,
      parameters: tool.parameters ?? { type: "object", properties: {} },
      strict: tool.strict ?? undefined,
    })),
    toolChoice: choice === undefined ? undefined : typeof choice === "string" ? { mode: choice } : { mode: "tool", name: choice.name },
    parallelToolCalls: request.parallel_tool_calls ?? undefined,
    maxOutputTokens: request.max_output_tokens ?? boundWhenUnset,
    stopSequences: [],
    sampling: {
      ...(request.temperature != null && { temperature: request.temperature }),
      ...(request.top_p != null && { topP: request.top_p }),
    },
    responseFormat:
      format === undefined || format.type === "text"
        ? undefined
        : format.type === "json_object"
          ? { type: "json_object" }
          : { type: "json_schema", name: format.name, schema: format.schema, strict: format.strict ?? undefined },
    user: request.user,
    dropped: new Set(dropped),
  };
}
