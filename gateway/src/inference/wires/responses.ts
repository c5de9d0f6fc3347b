import type { ResponseObject, ResponseOutputMessage, ResponsesRequest } from "@gateway-keys/contract";
import { newId } from "../../crypto";
import type { TextCompletion, TextTurn } from "../text";
import type { TextAsk, TextWire } from "../text-call";

type ResponsesBody = Extract<ResponsesRequest, object> & { input: ResponsesRequest["input"] };

/** What a Responses request asks: `instructions` and system/developer input messages are the system text. */
export function responsesAsk(body: ResponsesBody): TextAsk {
  const system = body.instructions == null ? [] : [body.instructions];
  const turns: TextTurn[] = [];
  if (typeof body.input === "string") {
    turns.push({ role: "user", text: body.input });
  } else {
    for (const item of body.input) {
      const text = typeof item.content === "string" ? item.content : item.content.map((part) => part.text).join("");
      if (item.role === "system" || item.role === "developer") system.push(text);
      else turns.push({ role: item.role, text });
    }
  }
  return {
    system: system.length > 0 ? system.join("\n") : undefined,
    turns,
    stopSequences: [],
    maxOutputTokens: body.max_output_tokens == null ? undefined : { value: body.max_output_tokens, param: "max_output_tokens" },
    stream: body.stream === true,
  };
}

/**
 * The Responses wire. A stream names every event and numbers it (`sequence_number`), in the order
 * the SDK's stream helper accumulates: response.created, response.in_progress,
 * response.output_item.added, response.content_part.added, response.output_text.delta…,
 * response.output_text.done, response.content_part.done, response.output_item.done,
 * response.completed (or response.incomplete at `max_output_tokens`).
 */
/** `nowMs`: the gateway clock's time, which stamps the answer like its log row. */
export function responsesWire(body: ResponsesBody, nowMs: number): TextWire<ResponseObject> {
  const id = newId("resp");
  const itemId = newId("msg");
  const createdAt = Math.floor(nowMs / 1000);
  let sequence = 0;
  let modelId = body.model;

  const item = (status: ResponseOutputMessage["status"], content: string | undefined): ResponseOutputMessage => ({
    type: "message",
    id: itemId,
    status,
    role: "assistant",
    content: content === undefined ? [] : [{ type: "output_text", text: content, annotations: [] }],
  });
  const response = (completion: TextCompletion | undefined): ResponseObject => {
    const incomplete = completion?.finish === "length";
    return {
      id,
      object: "response",
      created_at: createdAt,
      status: completion === undefined ? "in_progress" : incomplete ? "incomplete" : "completed",
      model: modelId,
      output: completion === undefined ? [] : [item(incomplete ? "incomplete" : "completed", completion.text)],
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      error: null,
      usage:
        completion === undefined
          ? null
          : {
              input_tokens: completion.usage.inputTokens,
              output_tokens: completion.usage.outputTokens,
              total_tokens: completion.usage.inputTokens + completion.usage.outputTokens,
            },
    };
  };
  const send = (sse: Parameters<TextWire<ResponseObject>["open"]>[0], type: string, fields: object) =>
    sse.send({ type, sequence_number: sequence++, ...fields }, type);
  const part = { item_id: itemId, output_index: 0, content_index: 0 };

  return {
    answer: (completion, model) => {
      modelId = model.id;
      return response(completion);
    },
    open: (sse, model) => {
      modelId = model.id;
      send(sse, "response.created", { response: response(undefined) });
      send(sse, "response.in_progress", { response: response(undefined) });
      send(sse, "response.output_item.added", { output_index: 0, item: item("in_progress", undefined) });
      send(sse, "response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } });
    },
    delta: (sse, delta) => send(sse, "response.output_text.delta", { ...part, delta, logprobs: [] }),
    close: (sse, completion) => {
      const done = response(completion);
      send(sse, "response.output_text.done", { ...part, text: completion.text, logprobs: [] });
      send(sse, "response.content_part.done", { ...part, part: { type: "output_text", text: completion.text, annotations: [] } });
      send(sse, "response.output_item.done", { output_index: 0, item: done.output[0] });
      send(sse, done.status === "incomplete" ? "response.incomplete" : "response.completed", { response: done });
    },
    fail: (sse, error) => send(sse, "error", { code: error.code, message: error.message, param: error.param ?? null }),
  };
}
