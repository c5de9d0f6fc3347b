import type { ServerSentEvent } from "../../../upstream/sse-events";
import type { FinishReason, TextCompletion, TextDelta, TextUsage, ToolCallPart } from "../../text";
import { completionParts } from "../../completion-parts";

const STOP: Record<string, FinishReason> = {
  end_turn: "end",
  max_tokens: "length",
  stop_sequence: "stop_sequence",
  tool_use: "tool_calls",
  refusal: "refusal",
  pause_turn: "end",
  model_context_window_exceeded: "length",
};

interface MessagesUsageBody {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}
interface MessageBlockBody {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}
export interface MessageAnswerBody {
  content?: MessageBlockBody[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: MessagesUsageBody;
}

/**
 * Usage as the Messages wire reports it. Its `input_tokens` leaves out the tokens read from or
 * written to the prompt cache; the gateway counts them all as input (docs/operators/upstream.md#families-fallback-errors-and-billing).
 */
export function messagesReportedUsage(usage: MessagesUsageBody | undefined): Partial<TextUsage> {
  const read = usage?.cache_read_input_tokens ?? 0;
  const written = usage?.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: usage?.input_tokens === undefined ? undefined : usage.input_tokens + read + written,
    outputTokens: usage?.output_tokens,
    ...(usage?.cache_read_input_tokens != null && { cachedInputTokens: read }),
    ...(usage?.cache_creation_input_tokens != null && { cacheWriteInputTokens: written }),
  };
}

/** A Messages answer (of an Anthropic-wire provider) as a completion; `usage` fills what it leaves out. */
export function messagesCompletionOf(body: MessageAnswerBody, usage: (reported: Partial<TextUsage>) => TextUsage): TextCompletion {
  let text = "";
  const calls: ToolCallPart[] = [];
  for (const block of body.content ?? []) {
    if (block.type === "text") text += block.text ?? "";
    else if (block.type === "tool_use") calls.push({ type: "tool_call", id: block.id ?? "", name: block.name ?? "", arguments: JSON.stringify(block.input ?? {}) });
  }
  return {
    parts: completionParts(text, calls),
    finish: STOP[body.stop_reason ?? "end_turn"] ?? "end",
    stopSequence: body.stop_sequence ?? null,
    usage: usage(messagesReportedUsage(body.usage)),
  };
}

/**
 * A Messages stream as deltas: text deltas, tool_use blocks and their `input_json_delta` pieces;
 * the end at `message_stop`. An `error` event, or a stream that ends before `message_stop`, is a
 * failure (thrown).
 */
export async function* messagesDeltasOf(events: AsyncIterable<ServerSentEvent>, usage: (reported: Partial<TextUsage>) => TextUsage): AsyncIterable<TextDelta> {
  const summary: MessageAnswerBody = { usage: {} };
  let text = "";
  const calls: ToolCallPart[] = [];
  for await (const { event, data } of events) {
    const payload = JSON.parse(data) as {
      type?: string;
      message?: MessageAnswerBody;
      content_block?: MessageBlockBody;
      delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null; stop_sequence?: string | null };
      usage?: MessagesUsageBody;
    };
    switch (event ?? payload.type) {
      case "error":
        throw new Error("the provider sent an error event");
      case "message_start":
        summary.usage = { ...summary.usage, ...payload.message?.usage };
        break;
      case "content_block_start":
        if (payload.content_block?.type === "tool_use") {
          const call: ToolCallPart = { type: "tool_call", id: payload.content_block.id ?? "", name: payload.content_block.name ?? "", arguments: "" };
          calls.push(call);
          yield { kind: "tool_call", id: call.id, name: call.name };
        }
        break;
      case "content_block_delta":
        if (payload.delta?.type === "text_delta" && payload.delta.text) {
          text += payload.delta.text;
          yield { kind: "text", text: payload.delta.text };
        } else if (payload.delta?.type === "input_json_delta" && payload.delta.partial_json && calls.length > 0) {
          calls[calls.length - 1]!.arguments += payload.delta.partial_json;
          yield { kind: "tool_arguments", text: payload.delta.partial_json };
        }
        break;
      case "message_delta":
        summary.stop_reason = payload.delta?.stop_reason ?? null;
        summary.stop_sequence = payload.delta?.stop_sequence ?? null;
        summary.usage = { ...summary.usage, ...payload.usage };
        break;
      case "message_stop":
        yield {
          kind: "end",
          completion: {
            parts: completionParts(text, calls),
            finish: STOP[summary.stop_reason ?? "end_turn"] ?? "end",
            stopSequence: summary.stop_sequence ?? null,
            usage: usage(messagesReportedUsage(summary.usage)),
          },
        };
        return;
    }
  }
  throw new Error("the stream ended before message_stop");
}
