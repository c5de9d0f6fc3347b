import type { FinishReason, TextCompletion, TextDelta, TextEngine, TextPrompt } from "../inference/text";
import { postJson, readJson, upstreamFailure, type UpstreamProvider } from "./http";
import { readServerSentEvents } from "./sse-reader";
import { reportedUsage } from "./usage";

const STOP: Record<string, FinishReason> = { end_turn: "end", max_tokens: "length", stop_sequence: "stop_sequence" };
/** The Messages API version the gateway speaks to providers. */
const ANTHROPIC_VERSION = "2023-06-01";

interface MessageAnswer {
  content?: { type?: string; text?: string }[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** The prompt as an Anthropic Messages body (`max_tokens` is required there, and always set here). */
function messagesBody(model: string, prompt: TextPrompt, stream: boolean) {
  return {
    model,
    max_tokens: prompt.maxOutputTokens,
    ...(prompt.system === undefined ? {} : { system: prompt.system }),
    messages: prompt.turns.map((turn) => ({ role: turn.role, content: turn.text })),
    ...(prompt.stopSequences.length > 0 ? { stop_sequences: prompt.stopSequences } : {}),
    ...(stream ? { stream: true } : {}),
  };
}

function completionOf(prompt: TextPrompt, text: string, answer: MessageAnswer): TextCompletion {
  return {
    text,
    finish: STOP[answer.stop_reason ?? "end_turn"] ?? "end",
    stopSequence: answer.stop_sequence ?? null,
    usage: reportedUsage(prompt, answer.usage?.input_tokens, answer.usage?.output_tokens),
  };
}

/** A chat model at an Anthropic-wire provider (`baseUrl` as the Anthropic SDK takes it, e.g. `https://api.anthropic.com`). */
export function anthropicChatEngine(provider: UpstreamProvider, upstreamModel: string): TextEngine {
  const headers = { "x-api-key": provider.apiKey, "anthropic-version": ANTHROPIC_VERSION };
  return {
    async complete(prompt, signal) {
      const answer = await postJson(provider, "/v1/messages", headers, messagesBody(upstreamModel, prompt, false), signal);
      const body = await readJson<MessageAnswer>(provider, answer);
      const text = (body.content ?? []).map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
      return completionOf(prompt, text, body);
    },
    async *stream(prompt, signal): AsyncIterable<TextDelta> {
      const answer = await postJson(provider, "/v1/messages", headers, messagesBody(upstreamModel, prompt, true), signal);
      let text = "";
      const summary: MessageAnswer = { usage: {} };
      let stopped = false;
      try {
        for await (const { event, data } of readServerSentEvents(answer.body)) {
          const payload = JSON.parse(data) as {
            type?: string;
            message?: MessageAnswer;
            delta?: { type?: string; text?: string; stop_reason?: string | null; stop_sequence?: string | null };
            usage?: { output_tokens?: number };
            error?: { message?: string };
          };
          const type = event ?? payload.type;
          if (type === "error") throw new Error("the provider sent an error event");
          if (type === "message_start") summary.usage = { ...summary.usage, ...payload.message?.usage };
          if (type === "content_block_delta" && payload.delta?.type === "text_delta" && payload.delta.text) {
            text += payload.delta.text;
            yield { kind: "text", text: payload.delta.text };
          }
          if (type === "message_delta") {
            summary.stop_reason = payload.delta?.stop_reason ?? null;
            summary.stop_sequence = payload.delta?.stop_sequence ?? null;
            summary.usage = { ...summary.usage, ...payload.usage };
          }
          if (type === "message_stop") {
            stopped = true;
            break;
          }
        }
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
      if (!stopped) throw upstreamFailure(provider, new Error("the stream ended before message_stop"));
      yield { kind: "end", completion: completionOf(prompt, text, summary) };
    },
  };
}
