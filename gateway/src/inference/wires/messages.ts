import { ERROR_CODES, type MessageObject, type MessagesRequest, type MessagesStopReason } from "@gateway-keys/contract";
import { newId } from "../../crypto";
import type { GatewayError } from "../../errors";
import type { FinishReason, TextCompletion } from "../text";
import type { TextAsk, TextWire } from "../text-call";

const STOP: Record<FinishReason, MessagesStopReason> = { end: "end_turn", length: "max_tokens", stop_sequence: "stop_sequence" };

const textOf = (content: string | { text: string }[]): string => (typeof content === "string" ? content : content.map((block) => block.text).join(""));

/** What a Messages request asks. */
export function messagesAsk(body: MessagesRequest): TextAsk {
  return {
    system: body.system == null ? undefined : textOf(body.system),
    turns: body.messages.map((message) => ({ role: message.role, text: textOf(message.content) })),
    stopSequences: body.stop_sequences ?? [],
    maxOutputTokens: { value: body.max_tokens, param: "max_tokens" },
    stream: body.stream === true,
  };
}

/**
 * The error body of the Messages wire, `{ type: "error", error: { type, message } }`, with our
 * error types mapped onto Anthropic's where they differ.
 */
export function anthropicError(error: GatewayError): { type: "error"; error: { type: string; message: string } } {
  const ours = ERROR_CODES[error.code];
  const type =
    ours === "spend_limit_error"
      ? "billing_error"
      : ours === "payload_too_large_error"
        ? "request_too_large"
        : ours === "conflict_error" || ours === "idempotency_error"
          ? "invalid_request_error"
          : ours === "upstream_error" || ours === "upstream_timeout_error"
            ? "api_error"
            : ours;
  return { type: "error", error: { type, message: error.message } };
}

/**
 * The Messages wire. A stream names every event (`event:` lines; the Anthropic SDK drops events
 * without one): message_start, content_block_start, ping, content_block_delta…, content_block_stop,
 * message_delta (stop reason, output tokens), message_stop.
 */
export function messagesWire(): TextWire<MessageObject> {
  const id = newId("msg");
  const message = (model: string, completion: TextCompletion | undefined, inputTokens: number): MessageObject => ({
    id,
    type: "message",
    role: "assistant",
    model,
    content: completion ? [{ type: "text", text: completion.text }] : [],
    stop_reason: completion ? STOP[completion.finish] : null,
    stop_sequence: completion?.stopSequence ?? null,
    usage: { input_tokens: completion?.usage.inputTokens ?? inputTokens, output_tokens: completion?.usage.outputTokens ?? 0 },
  });
  return {
    answer: (completion, model) => message(model.id, completion, completion.usage.inputTokens),
    open: (sse, model, inputTokens) => {
      sse.send({ type: "message_start", message: message(model.id, undefined, inputTokens) }, "message_start");
      sse.send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
      sse.send({ type: "ping" }, "ping");
    },
    delta: (sse, text) => sse.send({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta"),
    close: (sse, completion) => {
      sse.send({ type: "content_block_stop", index: 0 }, "content_block_stop");
      sse.send(
        {
          type: "message_delta",
          delta: { stop_reason: STOP[completion.finish], stop_sequence: completion.stopSequence },
          usage: { output_tokens: completion.usage.outputTokens },
        },
        "message_delta",
      );
      sse.send({ type: "message_stop" }, "message_stop");
    },
    fail: (sse, error) => sse.send(anthropicError(error), "error"),
  };
}
