import type { ServerSentEvent } from "../../../upstream/sse-events";
import type { FinishReason, TextCompletion, TextDelta, TextUsage, ToolCallPart } from "../../text";
import { completionParts } from "../../completion-parts";

const FINISH: Record<string, FinishReason> = { stop: "end", length: "length", tool_calls: "tool_calls", function_call: "tool_calls", content_filter: "content_filter" };

interface ChatUsageBody {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}
interface ChatToolCallBody {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface ChatChoiceBody {
  message?: { content?: string | null; refusal?: string | null; tool_calls?: ChatToolCallBody[] | null };
  delta?: { content?: string | null; refusal?: string | null; tool_calls?: ChatToolCallBody[] | null };
  finish_reason?: string | null;
}
export interface ChatAnswerBody {
  choices?: ChatChoiceBody[];
  usage?: ChatUsageBody | null;
}

/** Usage as the Chat Completions wire reports it; a count left out is `undefined` (charged at the request's bound). */
export function chatReportedUsage(usage: ChatUsageBody | null | undefined): Partial<TextUsage> {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return { inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens, ...(cached !== undefined && { cachedInputTokens: cached }) };
}

/** A Chat Completions answer (of an OpenAI-wire provider) as a completion; `usage` fills what it leaves out. */
export function chatCompletionOf(body: ChatAnswerBody, usage: (reported: Partial<TextUsage>) => TextUsage): TextCompletion {
  const choice = body.choices?.[0];
  const message = choice?.message;
  const calls: ToolCallPart[] = (message?.tool_calls ?? []).map((call) => ({ type: "tool_call", id: call.id ?? "", name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" }));
  const text = (message?.content ?? "") + (message?.refusal ?? "");
  return {
    parts: completionParts(text, calls),
    finish: message?.refusal ? "refusal" : (FINISH[choice?.finish_reason ?? "stop"] ?? "end"),
    stopSequence: null,
    usage: usage(chatReportedUsage(body.usage)),
  };
}

/**
 * A Chat Completions stream as deltas: content, tool calls (a new `index` opens one) and their
 * argument pieces; the end once `[DONE]` arrives, with the usage chunk's totals. A stream that
 * ends without `[DONE]` is a failure (thrown).
 */
export async function* chatDeltasOf(events: AsyncIterable<ServerSentEvent>, usage: (reported: Partial<TextUsage>) => TextUsage): AsyncIterable<TextDelta> {
  let text = "";
  let finish: string | null | undefined;
  let refused = false;
  let reported: ChatUsageBody | null | undefined;
  const calls: ToolCallPart[] = [];
  let callIndex: number | undefined;
  for await (const { data } of events) {
    if (data === "[DONE]") {
      yield {
        kind: "end",
        completion: { parts: completionParts(text, calls), finish: refused ? "refusal" : (FINISH[finish ?? "stop"] ?? "end"), stopSequence: null, usage: usage(chatReportedUsage(reported)) },
      };
      return;
    }
    const chunk = JSON.parse(data) as ChatAnswerBody & { error?: unknown };
    if (chunk.error !== undefined) throw new Error("the provider sent an error in its stream");
    if (chunk.usage) reported = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const piece = (choice.delta?.content ?? "") + (choice.delta?.refusal ?? "");
    if (choice.delta?.refusal) refused = true;
    if (piece !== "") {
      text += piece;
      yield { kind: "text", text: piece };
    }
    for (const call of choice.delta?.tool_calls ?? []) {
      const index = call.index ?? callIndex ?? 0;
      if (index !== callIndex) {
        callIndex = index;
        calls.push({ type: "tool_call", id: call.id ?? "", name: call.function?.name ?? "", arguments: "" });
        yield { kind: "tool_call", id: call.id ?? "", name: call.function?.name ?? "" };
      }
      const args = call.function?.arguments;
      if (args) {
        calls[calls.length - 1]!.arguments += args;
        yield { kind: "tool_arguments", text: args };
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  throw new Error("the stream ended before [DONE]");
}
