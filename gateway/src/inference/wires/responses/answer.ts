import type { ResponseObject, ResponseOutputItem, ResponsesRequest, ResponseUsage } from "@gateway-keys/contract";
import { newId } from "../../../crypto";
import type { GatewayError } from "../../../errors";
import type { SseStream } from "../../sse";
import type { AnswerPart, TextCompletion, TextUsage } from "../../text";
import type { ClientWire } from "../../client-wire";

type ItemStatus = "in_progress" | "completed" | "incomplete";

function usageOf(usage: TextUsage): ResponseUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, cache_write_tokens: usage.cacheWriteInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The request's settings that a response object echoes. */
function echoed(body: ResponsesRequest) {
  const field = <T>(name: string, fallback: T): T => (body[name] === undefined || body[name] === null ? fallback : (body[name] as T));
  return {
    instructions: field<string | null>("instructions", null),
    max_output_tokens: body.max_output_tokens ?? null,
    tools: field<unknown[]>("tools", []),
    tool_choice: field<unknown>("tool_choice", "auto"),
    parallel_tool_calls: field<boolean>("parallel_tool_calls", true),
    metadata: field<Record<string, string>>("metadata", {}),
    temperature: field<number | null>("temperature", null),
    top_p: field<number | null>("top_p", null),
  };
}

/**
 * The Responses wire. A stream names every event and numbers it (`sequence_number`), in the order
 * the SDK's stream helper accumulates: response.created, response.in_progress; per output item
 * response.output_item.added, then for a message content_part.added, output_text.delta…,
 * output_text.done, content_part.done, or for a function call function_call_arguments.delta… and
 * .done; response.output_item.done; last response.completed (or response.incomplete at
 * `max_output_tokens`). `nowMs`: the gateway clock's time, which stamps the answer like its log row.
 */
export function responsesWire(body: ResponsesRequest, nowMs: number): ClientWire<ResponseObject> {
  const id = newId("resp");
  const createdAt = Math.floor(nowMs / 1000);
  const itemIds: string[] = [];
  const itemId = (index: number) => (itemIds[index] ??= newId("msg"));

  // An item just added to a stream has no content yet: its part arrives in content_part.added.
  const item = (part: AnswerPart, index: number, status: ItemStatus, added = false): ResponseOutputItem =>
    part.type === "text"
      ? { type: "message", id: itemId(index), status, role: "assistant", content: added ? [] : [{ type: "output_text", text: part.text, annotations: [], logprobs: [] }] }
      : { type: "function_call", id: itemId(index), call_id: part.id, name: part.name, arguments: part.arguments, status };

  const response = (modelId: string, completion: TextCompletion | undefined): ResponseObject => {
    const incomplete = completion?.finish === "length";
    const status: ItemStatus = completion === undefined ? "in_progress" : incomplete ? "incomplete" : "completed";
    return {
      id,
      object: "response",
      created_at: createdAt,
      status,
      model: modelId,
      output: completion === undefined ? [] : completion.parts.map((part, index) => item(part, index, status)),
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      error: null,
      ...echoed(body),
      ...(completion !== undefined && { usage: usageOf(completion.usage) }),
    };
  };

  return {
    answer: (completion, modelId) => response(modelId, completion),
    stream: (sse: SseStream, modelId) => {
      let sequence = 0;
      const send = (type: string, fields: object) => sse.send({ type, sequence_number: sequence++, ...fields }, type);
      const parts: AnswerPart[] = [];
      const finishItem = () => {
        const index = parts.length - 1;
        const part = parts[index];
        if (!part) return;
        const ids = { item_id: itemId(index), output_index: index };
        if (part.type === "text") {
          send("response.output_text.done", { ...ids, content_index: 0, text: part.text, logprobs: [] });
          send("response.content_part.done", { ...ids, content_index: 0, part: { type: "output_text", text: part.text, annotations: [], logprobs: [] } });
        } else {
          send("response.function_call_arguments.done", { ...ids, name: part.name, arguments: part.arguments });
        }
        send("response.output_item.done", { output_index: index, item: item(part, index, "completed") });
      };
      const startItem = (part: AnswerPart) => {
        finishItem();
        parts.push(part);
        const index = parts.length - 1;
        send("response.output_item.added", { output_index: index, item: item(part, index, "in_progress", true) });
        if (part.type === "text") send("response.content_part.added", { item_id: itemId(index), output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      };
      send("response.created", { response: response(modelId, undefined) });
      send("response.in_progress", { response: response(modelId, undefined) });
      return {
        write: (piece) => {
          const index = parts.length - 1;
          const current = parts[index];
          if (piece.kind === "tool_call") {
            startItem({ type: "tool_call", id: piece.id, name: piece.name, arguments: "" });
          } else if (piece.kind === "tool_arguments" && current?.type === "tool_call") {
            current.arguments += piece.text;
            send("response.function_call_arguments.delta", { item_id: itemId(index), output_index: index, delta: piece.text });
          } else if (piece.kind === "text") {
            if (current?.type !== "text") startItem({ type: "text", text: "" });
            const at = parts.length - 1;
            (parts[at] as Extract<AnswerPart, { type: "text" }>).text += piece.text;
            send("response.output_text.delta", { item_id: itemId(at), output_index: at, content_index: 0, delta: piece.text, logprobs: [] });
          }
        },
        close: (completion) => {
          if (parts.length === 0) startItem({ type: "text", text: "" });
          finishItem();
          const done = response(modelId, completion);
          send(done.status === "incomplete" ? "response.incomplete" : "response.completed", { response: done });
        },
        fail: (error: GatewayError) => send("error", { code: error.wireCode, message: error.message, param: error.param ?? null }),
      };
    },
  };
}
