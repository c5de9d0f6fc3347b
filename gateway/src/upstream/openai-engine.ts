import type { FinishReason, TextCompletion, TextDelta, TextEngine, TextPrompt } from "../inference/text";
import { postJson, readJson, upstreamFailure, type UpstreamProvider } from "./http";
import { readServerSentEvents } from "./sse-reader";
import { reportedUsage } from "./usage";

const FINISH: Record<string, FinishReason> = { stop: "end", length: "length", content_filter: "end", tool_calls: "end" };

interface ChatAnswer {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}
interface ChatChunk {
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** The prompt as an OpenAI Chat Completions body. Usage is always asked of a stream: the gateway bills from it. */
function chatBody(model: string, prompt: TextPrompt, stream: boolean) {
  return {
    model,
    messages: [...(prompt.system === undefined ? [] : [{ role: "system", content: prompt.system }]), ...prompt.turns.map((turn) => ({ role: turn.role, content: turn.text }))],
    max_tokens: prompt.maxOutputTokens,
    ...(prompt.stopSequences.length > 0 ? { stop: prompt.stopSequences } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** The answer in the internal form; the OpenAI wire does not say which stop sequence ended the text. */
function completionOf(prompt: TextPrompt, text: string, finishReason: string | null | undefined, usage: ChatAnswer["usage"]): TextCompletion {
  return {
    text,
    finish: FINISH[finishReason ?? "stop"] ?? "end",
    stopSequence: null,
    usage: reportedUsage(prompt, usage?.prompt_tokens, usage?.completion_tokens),
  };
}

/** A chat model at an OpenAI-wire provider (`baseUrl` as the openai SDK takes it, e.g. `https://api.openai.com/v1`). */
export function openAiChatEngine(provider: UpstreamProvider, upstreamModel: string): TextEngine {
  const headers = { authorization: `Bearer ${provider.apiKey}` };
  return {
    async complete(prompt, signal) {
      const answer = await postJson(provider, "/chat/completions", headers, chatBody(upstreamModel, prompt, false), signal);
      const body = await readJson<ChatAnswer>(provider, answer);
      const choice = body.choices?.[0];
      return completionOf(prompt, choice?.message?.content ?? "", choice?.finish_reason, body.usage);
    },
    async *stream(prompt, signal): AsyncIterable<TextDelta> {
      const answer = await postJson(provider, "/chat/completions", headers, chatBody(upstreamModel, prompt, true), signal);
      let text = "";
      let finishReason: string | null | undefined;
      let usage: ChatChunk["usage"];
      let done = false;
      try {
        for await (const { data } of readServerSentEvents(answer.body)) {
          if (data === "[DONE]") {
            done = true;
            break;
          }
          const chunk = JSON.parse(data) as ChatChunk;
          const choice = chunk.choices?.[0];
          const piece = choice?.delta?.content;
          if (piece) {
            text += piece;
            yield { kind: "text", text: piece };
          }
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          if (chunk.usage) usage = chunk.usage;
        }
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
      if (!done) throw upstreamFailure(provider, new Error("the stream ended before [DONE]"));
      // A stream without usage (an upstream that ignores include_usage) is charged its reservation.
      yield { kind: "end", completion: completionOf(prompt, text, finishReason, usage) };
    },
  };
}
