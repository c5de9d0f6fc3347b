import type { ServerSentEvent } from "../../../upstream/sse-events";
import type { FinishReason, TextCompletion, TextDelta, TextUsage, ToolCallPart } from "../../text";
import { completionParts } from "../../completion-parts";

/**
 * Reads an Amazon Bedrock Converse answer: the whole response of `converse`, or the events of
 * `converse-stream` (each an event-stream message the bedrock kind hands on as one event named
 * by its `:event-type`, its JSON payload as data).
 */

const STOP: Record<string, FinishReason> = {
  end_turn: "end",
  tool_use: "tool_calls",
  max_tokens: "length",
  stop_sequence: "stop_sequence",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
  model_context_window_exceeded: "length",
};

interface ConverseUsageBody {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}
interface ConverseBlockBody {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
}
/** What a model may add beside the stop reason: Anthropic's models on Bedrock name the stop sequence met. */
type ModelFields = { stop_sequence?: unknown } | undefined;

export interface ConverseAnswerBody {
  output?: { message?: { content?: ConverseBlockBody[] } };
  stopReason?: string;
  usage?: ConverseUsageBody;
  additionalModelResponseFields?: ModelFields;
}

/**
 * Usage as Converse reports it. Its `inputTokens` leaves out the tokens read from or written to
 * the prompt cache; the gateway counts them all as input, as on the Messages wire, and keeps how
 * many were read and written for the wires that report them.
 */
export function converseReportedUsage(usage: ConverseUsageBody | undefined): Partial<TextUsage> {
  const read = usage?.cacheReadInputTokens ?? 0;
  const written = usage?.cacheWriteInputTokens ?? 0;
  return {
    inputTokens: usage?.inputTokens === undefined ? undefined : usage.inputTokens + read + written,
    outputTokens: usage?.outputTokens,
    ...(usage?.cacheReadInputTokens !== undefined && { cachedInputTokens: read }),
    ...(usage?.cacheWriteInputTokens !== undefined && { cacheWriteInputTokens: written }),
  };
}

const stopSequenceOf = (fields: ModelFields) => (typeof fields?.stop_sequence === "string" ? fields.stop_sequence : null);

/** A Converse response as a completion; `usage` fills what it leaves out. */
export function converseCompletionOf(body: ConverseAnswerBody, usage: (reported: Partial<TextUsage>) => TextUsage): TextCompletion {
  let text = "";
  const calls: ToolCallPart[] = [];
  for (const block of body.output?.message?.content ?? []) {
    if (block.text !== undefined) text += block.text;
    else if (block.toolUse) calls.push({ type: "tool_call", id: block.toolUse.toolUseId ?? "", name: block.toolUse.name ?? "", arguments: JSON.stringify(block.toolUse.input ?? {}) });
  }
  return {
    parts: completionParts(text, calls),
    finish: STOP[body.stopReason ?? "end_turn"] ?? "end",
    stopSequence: stopSequenceOf(body.additionalModelResponseFields),
    usage: usage(converseReportedUsage(body.usage)),
  };
}

interface ConverseStreamPayload {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: { text?: string; toolUse?: { input?: string } };
  stopReason?: string;
  additionalModelResponseFields?: ModelFields;
  usage?: ConverseUsageBody;
}

/**
 * ConverseStream's events as deltas: text deltas, tool uses (opened by `contentBlockStart`, their
 * input in `contentBlockDelta` pieces). `messageStop` carries the stop reason and `metadata`,
 * which follows it, the usage: the end is yielded at `metadata`, or when the stream closes after
 * `messageStop` without one. A stream that closes before `messageStop` is a failure (thrown); an
 * exception message never reaches here: the kind throws it as the gateway's error.
 */
export async function* converseDeltasOf(events: AsyncIterable<ServerSentEvent>, usage: (reported: Partial<TextUsage>) => TextUsage): AsyncIterable<TextDelta> {
  let text = "";
  const calls = new Map<number, ToolCallPart>();
  let stop: ConverseStreamPayload | undefined;
  const end = (reported: ConverseUsageBody | undefined): TextDelta => ({
    kind: "end",
    completion: {
      parts: completionParts(text, [...calls.values()]),
      finish: STOP[stop?.stopReason ?? "end_turn"] ?? "end",
      stopSequence: stopSequenceOf(stop?.additionalModelResponseFields),
      usage: usage(converseReportedUsage(reported)),
    },
  });
  for await (const { event, data } of events) {
    const payload = JSON.parse(data) as ConverseStreamPayload;
    switch (event) {
      case "contentBlockStart": {
        const toolUse = payload.start?.toolUse;
        if (toolUse) {
          const call: ToolCallPart = { type: "tool_call", id: toolUse.toolUseId ?? "", name: toolUse.name ?? "", arguments: "" };
          calls.set(payload.contentBlockIndex ?? calls.size, call);
          yield { kind: "tool_call", id: call.id, name: call.name };
        }
        break;
      }
      case "contentBlockDelta": {
        const delta = payload.delta;
        if (delta?.text) {
          text += delta.text;
          yield { kind: "text", text: delta.text };
        } else if (delta?.toolUse?.input) {
          const call = calls.get(payload.contentBlockIndex ?? -1) ?? [...calls.values()].pop();
          if (!call) throw new Error("a tool input delta came before its tool use");
          call.arguments += delta.toolUse.input;
          yield { kind: "tool_arguments", text: delta.toolUse.input };
        }
        break;
      }
      case "messageStop":
        stop = payload;
        break;
      case "metadata":
        if (!stop) throw new Error("the stream's metadata came before messageStop");
        yield end(payload.usage);
        return;
    }
  }
  if (!stop) throw new Error("the stream ended before messageStop");
  yield end(undefined);
}
