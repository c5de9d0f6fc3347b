import { ERROR_CODES, type MessageObject, type MessagesStopReason } from "@gateway-keys/contract";
import { newId } from "../../../crypto";
import { anthropicError, type GatewayError } from "../../../errors";
import type { FinishReason, TextCompletion, TextUsage } from "../../text";
import { parsedArguments, type ClientWire } from "../../client-wire";

export const MESSAGES_STOP: Record<FinishReason, MessagesStopReason> = {
  end: "end_turn",
  length: "max_tokens",
  stop_sequence: "stop_sequence",
  tool_calls: "tool_use",
  content_filter: "refusal",
  refusal: "refusal",
};


/**
 * Usage on the Messages wire, whose `input_tokens` leaves out what was read from or written to
 * the prompt cache: those are `cache_read_input_tokens` and `cache_creation_input_tokens`, which
 * Anthropic's clients add back (and show as cache use).
 */
function usageOf(usage: TextUsage): MessageObject["usage"] {
  const read = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  return {
    input_tokens: usage.inputTokens - (read ?? 0) - (written ?? 0),
    output_tokens: usage.outputTokens,
    ...(written !== undefined && { cache_creation_input_tokens: written }),
    ...(read !== undefined && { cache_read_input_tokens: read }),
  };
}

/**
 * The Messages wire. A stream names every event (`event:` lines; the Anthropic SDK drops events
 * without one): message_start, then per content block content_block_start, its deltas
 * (`text_delta` or `input_json_delta`) and content_block_stop, then message_delta (stop reason,
 * output tokens) and message_stop.
 */
export function messagesWire(): ClientWire<MessageObject> {
  const id = newId("msg");
  const message = (modelId: string, completion: TextCompletion | undefined, inputTokens: number): MessageObject => ({
    id,
    type: "message",
    role: "assistant",
    model: modelId,
    content: (completion?.parts ?? []).map((part) =>
      part.type === "text" ? { type: "text", text: part.text } : { type: "tool_use", id: part.id, name: part.name, input: parsedArguments(part.arguments) },
    ),
    stop_reason: completion ? MESSAGES_STOP[completion.finish] : null,
    stop_sequence: completion?.stopSequence ?? null,
    usage: completion ? usageOf(completion.usage) : { input_tokens: inputTokens, output_tokens: 0 },
  });
  return {
    answer: (completion, modelId) => message(modelId, completion, completion.usage.inputTokens),
    stream: (sse, modelId, inputTokens) => {
      let index = -1;
      let open: "text" | "tool_use" | undefined;
      const closeBlock = () => {
        if (open !== undefined) sse.send({ type: "content_block_stop", index }, "content_block_stop");
        open = undefined;
      };
      const openBlock = (kind: "text" | "tool_use", block: object) => {
        closeBlock();
        open = kind;
        sse.send({ type: "content_block_start", index: ++index, content_block: block }, "content_block_start");
      };
      sse.send({ type: "message_start", message: message(modelId, undefined, inputTokens) }, "message_start");
      sse.send({ type: "ping" }, "ping");
      return {
        write: (piece) => {
          if (piece.kind === "tool_call") {
            openBlock("tool_use", { type: "tool_use", id: piece.id, name: piece.name, input: {} });
          } else if (piece.kind === "tool_arguments") {
            sse.send({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece.text } }, "content_block_delta");
          } else {
            if (open !== "text") openBlock("text", { type: "text", text: "" });
            sse.send({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece.text } }, "content_block_delta");
          }
        },
        close: (completion) => {
          // An answer with no content still has its one (empty) text block, as Anthropic sends it.
          if (index < 0) openBlock("text", { type: "text", text: "" });
          closeBlock();
          sse.send(
            {
              type: "message_delta",
              delta: { stop_reason: MESSAGES_STOP[completion.finish], stop_sequence: completion.stopSequence },
              // The totals, input included: the gateway knows the provider's input count only now.
              usage: usageOf(completion.usage),
            },
            "message_delta",
          );
          sse.send({ type: "message_stop" }, "message_stop");
        },
        fail: (error) => sse.send(anthropicError(error), "error"),
      };
    },
  };
}
