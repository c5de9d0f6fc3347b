import type { ChatCompletion, ChatCompletionChunk, ChatFinishReason, ChatUsage } from "@gateway-keys/contract";
import { newId } from "../../../crypto";
import { answerText, type FinishReason, type TextCompletion, type TextUsage } from "../../text";
import type { ClientWire } from "../../client-wire";

export const CHAT_FINISH: Record<FinishReason, ChatFinishReason> = {
  end: "stop",
  stop_sequence: "stop",
  length: "length",
  tool_calls: "tool_calls",
  content_filter: "content_filter",
  refusal: "content_filter",
};

export function chatUsageOf(usage: TextUsage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined && { prompt_tokens_details: { cached_tokens: usage.cachedInputTokens } }),
  };
}

function message(completion: TextCompletion): ChatCompletion["choices"][number]["message"] {
  const text = answerText(completion.parts);
  const calls = completion.parts.filter((part) => part.type === "tool_call");
  return {
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    refusal: null,
    ...(calls.length > 0 && { tool_calls: calls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } })) }),
  };
}

/**
 * The Chat Completions wire. A stream is `data:` chunks only (no `event:` lines): the role first,
 * then content and tool call deltas, then the finish reason; with `stream_options.include_usage`
 * every chunk carries `usage: null` and one more chunk with no choices carries the totals;
 * `data: [DONE]` ends it. `nowMs`: the gateway clock's time, which stamps the answer like its log row.
 */
export function chatWire(includeUsage: boolean, nowMs: number): ClientWire<ChatCompletion> {
  const id = newId("chatcmpl");
  const created = Math.floor(nowMs / 1000);
  return {
    answer: (completion, modelId) => ({
      id,
      object: "chat.completion",
      created,
      model: modelId,
      choices: [{ index: 0, message: message(completion), finish_reason: CHAT_FINISH[completion.finish], logprobs: null }],
      usage: chatUsageOf(completion.usage),
    }),
    stream: (sse, modelId) => {
      const chunk = (choice: ChatCompletionChunk["choices"][number] | undefined, usage?: ChatUsage): ChatCompletionChunk => ({
        id,
        object: "chat.completion.chunk",
        created,
        model: modelId,
        choices: choice ? [choice] : [],
        ...(includeUsage ? { usage: usage ?? null } : {}),
      });
      const delta = (fields: ChatCompletionChunk["choices"][number]["delta"]) => sse.send(chunk({ index: 0, delta: fields, finish_reason: null, logprobs: null }));
      let calls = -1;
      delta({ role: "assistant", content: "" });
      return {
        write: (piece) => {
          if (piece.kind === "text") delta({ content: piece.text });
          else if (piece.kind === "tool_call") delta({ tool_calls: [{ index: ++calls, id: piece.id, type: "function", function: { name: piece.name, arguments: "" } }] });
          else delta({ tool_calls: [{ index: calls, function: { arguments: piece.text } }] });
        },
        close: (completion) => {
          sse.send(chunk({ index: 0, delta: {}, finish_reason: CHAT_FINISH[completion.finish], logprobs: null }));
          if (includeUsage) sse.send(chunk(undefined, chatUsageOf(completion.usage)));
          sse.sendRaw("[DONE]");
        },
        fail: (error) => sse.send(error.toEnvelope()),
      };
    },
  };
}
