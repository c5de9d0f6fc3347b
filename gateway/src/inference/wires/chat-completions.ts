import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ChatFinishReason, ChatUsage } from "@gateway-keys/contract";
import { newId } from "../../crypto";
import type { FinishReason, TextCompletion, TextTurn } from "../text";
import type { TextAsk, TextWire } from "../text-call";

const FINISH: Record<FinishReason, ChatFinishReason> = { end: "stop", stop_sequence: "stop", length: "length" };

function textOf(content: ChatCompletionRequest["messages"][number]["content"]): string {
  if (content === null) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}

/** What a Chat Completions request asks: system and developer messages are the system text; tool results are read as user text. */
export function chatAsk(body: ChatCompletionRequest): TextAsk {
  const system: string[] = [];
  const turns: TextTurn[] = [];
  for (const message of body.messages) {
    if (message.role === "system" || message.role === "developer") system.push(textOf(message.content));
    else turns.push({ role: message.role === "assistant" ? "assistant" : "user", text: textOf(message.content) });
  }
  const max = body.max_completion_tokens ?? body.max_tokens;
  return {
    system: system.length > 0 ? system.join("\n") : undefined,
    turns,
    stopSequences: body.stop == null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop,
    maxOutputTokens:
      max == null ? undefined : { value: max, param: body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens" },
    stream: body.stream === true,
  };
}

function usageOf(completion: TextCompletion): ChatUsage {
  const { inputTokens, outputTokens } = completion.usage;
  return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
}

/**
 * The Chat Completions wire. A stream is `data:` chunks only (no `event:` lines): the role first,
 * then content deltas, then the finish reason; with `stream_options.include_usage` every chunk
 * carries `usage: null` and one more chunk with no choices carries the totals; `data: [DONE]` ends it.
 */
/** `nowMs`: the gateway clock's time, which stamps the answer like its log row. */
export function chatWire(body: ChatCompletionRequest, nowMs: number): TextWire<ChatCompletion> {
  const id = newId("chatcmpl");
  const created = Math.floor(nowMs / 1000);
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (model: string, choice: ChatCompletionChunk["choices"][number] | undefined, usage?: ChatUsage): ChatCompletionChunk => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: choice ? [choice] : [],
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  let modelId = body.model;
  return {
    answer: (completion, model) => ({
      id,
      object: "chat.completion",
      created,
      model: model.id,
      choices: [
        { index: 0, message: { role: "assistant", content: completion.text, refusal: null }, finish_reason: FINISH[completion.finish], logprobs: null },
      ],
      usage: usageOf(completion),
    }),
    open: (sse, model) => {
      modelId = model.id;
      sse.send(chunk(modelId, { index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }));
    },
    delta: (sse, text) => sse.send(chunk(modelId, { index: 0, delta: { content: text }, finish_reason: null, logprobs: null })),
    close: (sse, completion) => {
      sse.send(chunk(modelId, { index: 0, delta: {}, finish_reason: FINISH[completion.finish], logprobs: null }));
      if (includeUsage) sse.send(chunk(modelId, undefined, usageOf(completion)));
      sse.sendRaw("[DONE]");
    },
    fail: (sse, error) => sse.send(error.toEnvelope()),
  };
}
