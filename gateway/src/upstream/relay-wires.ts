import type { TextUsage } from "../inference/text";
import { chatReportedUsage, type ChatAnswerBody } from "../inference/wires/chat/provider-answer";
import { messagesReportedUsage, type MessageAnswerBody } from "../inference/wires/messages/provider-answer";
import { anthropicError } from "../inference/wires/messages/answer";
import type { GatewayError } from "../errors";
import type { ProviderWire } from "./provider";
import type { ServerSentEvent } from "./sse-events";

/**
 * What the gateway watches in a relayed stream: only what it needs — usage for the charge, the end
 * (or an error) for the log — parsing only the events that can carry them. The text is collected
 * only when the key's logging policy stores responses.
 */
export interface StreamWatch {
  /** Sees one event as it passes; false when it must not reach the client. */
  see(event: ServerSentEvent): boolean;
  /** The wire's last event was seen: the answer is complete (hold that event back until the charge commits). */
  readonly ended: boolean;
  /** The provider sent its wire's error event. */
  readonly failed: boolean;
  readonly usage: Partial<TextUsage>;
  readonly text: string;
}

/**
 * A text wire relayed unchanged to a provider of the same wire: where it goes, the few fields the
 * gateway owns in the body, and how its answers are read for metering.
 */
export interface RelayWire {
  providerWire: ProviderWire;
  /** The path at the provider, after its base URL. */
  path: string;
  /**
   * The client's body with what the gateway owns set: `model` (the route's), a bound on output
   * tokens when `bound` is given and the client set none, usage asked of a stream.
   */
  body(body: Record<string, unknown>, model: string, bound: number | undefined, stream: boolean): Record<string, unknown>;
  /** Usage and generated text of a whole answer. */
  readAnswer(json: unknown): { usage: Partial<TextUsage>; text: string };
  watch(clientAskedUsage: boolean, keepText: boolean): StreamWatch;
  /** An error after the stream started, as the wire's error event. */
  failEvent(error: GatewayError): ServerSentEvent;
}

const parse = <T>(data: string): T => JSON.parse(data) as T;
/** A chunk that carries usage totals (the others, when usage was asked, carry `"usage":null`). */
const USAGE_OBJECT = /"usage":\s*\{/;

export const CHAT_RELAY: RelayWire = {
  providerWire: "openai",
  path: "/chat/completions",
  body(body, model, bound, stream) {
    const options = body.stream_options !== null && typeof body.stream_options === "object" ? body.stream_options : {};
    return {
      ...body,
      model,
      ...(bound !== undefined && body.max_tokens == null && body.max_completion_tokens == null && { max_completion_tokens: bound }),
      ...(stream && { stream_options: { ...options, include_usage: true } }),
    };
  },
  readAnswer(json) {
    const body = json as ChatAnswerBody;
    return { usage: chatReportedUsage(body.usage), text: body.choices?.map((choice) => choice.message?.content ?? "").join("") ?? "" };
  },
  watch(clientAskedUsage, keepText) {
    const state = { ended: false, failed: false, usage: {} as Partial<TextUsage>, text: "" };
    return Object.assign(state, {
      see({ data }: ServerSentEvent): boolean {
        if (data === "[DONE]") {
          state.ended = true;
          return true;
        }
        // Every chunk has `choices`; one that lacks it is an error object.
        if (!data.includes('"choices"')) {
          state.failed = parse<{ error?: unknown }>(data).error !== undefined;
          return true;
        }
        if (!keepText && !USAGE_OBJECT.test(data)) return true;
        const chunk = parse<ChatAnswerBody>(data);
        if (keepText) for (const choice of chunk.choices ?? []) state.text += choice.delta?.content ?? "";
        if (!chunk.usage) return true;
        state.usage = chatReportedUsage(chunk.usage);
        // The usage chunk the gateway asked for reaches only a client that asked for it too.
        return clientAskedUsage || (chunk.choices?.length ?? 0) > 0;
      },
    });
  },
  failEvent: (error) => ({ event: undefined, data: JSON.stringify(error.toEnvelope()) }),
};

interface ResponseUsageBody {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
}
const responsesUsage = (usage: ResponseUsageBody | null | undefined): Partial<TextUsage> => ({
  inputTokens: usage?.input_tokens,
  outputTokens: usage?.output_tokens,
  ...(usage?.input_tokens_details?.cached_tokens !== undefined && { cachedInputTokens: usage.input_tokens_details.cached_tokens }),
});
const TERMINAL_RESPONSE_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

export const RESPONSES_RELAY: RelayWire = {
  providerWire: "openai",
  path: "/responses",
  body(body, model, bound) {
    return { ...body, model, ...(bound !== undefined && body.max_output_tokens == null && { max_output_tokens: bound }) };
  },
  readAnswer(json) {
    const body = json as { usage?: ResponseUsageBody; output?: { content?: { type?: string; text?: string }[] }[] };
    const text = (body.output ?? []).flatMap((item) => item.content ?? []).map((part) => (part.type === "output_text" ? (part.text ?? "") : "")).join("");
    return { usage: responsesUsage(body.usage), text };
  },
  watch(_clientAskedUsage, keepText) {
    const state = { ended: false, failed: false, usage: {} as Partial<TextUsage>, text: "" };
    return Object.assign(state, {
      see({ event, data }: ServerSentEvent): boolean {
        const type = event ?? parse<{ type?: string }>(data).type;
        if (type === undefined) return true;
        if (TERMINAL_RESPONSE_EVENTS.has(type)) {
          state.usage = responsesUsage(parse<{ response?: { usage?: ResponseUsageBody } }>(data).response?.usage);
          state.ended = true;
        } else if (type === "error") {
          state.failed = true;
        } else if (keepText && type === "response.output_text.delta") {
          state.text += parse<{ delta?: string }>(data).delta ?? "";
        }
        return true;
      },
    });
  },
  failEvent: (error) => ({ event: "error", data: JSON.stringify({ type: "error", code: error.wireCode, message: error.message, param: error.param ?? null }) }),
};

export const MESSAGES_RELAY: RelayWire = {
  providerWire: "anthropic",
  path: "/v1/messages",
  body: (body, model) => ({ ...body, model }),
  readAnswer(json) {
    const body = json as MessageAnswerBody;
    return { usage: messagesReportedUsage(body.usage), text: (body.content ?? []).map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("") };
  },
  watch(_clientAskedUsage, keepText) {
    let usage: MessageAnswerBody["usage"] = {};
    const state = { ended: false, failed: false, usage: {} as Partial<TextUsage>, text: "" };
    return Object.assign(state, {
      see({ event, data }: ServerSentEvent): boolean {
        const type = event ?? parse<{ type?: string }>(data).type;
        if (type === "message_start") usage = { ...usage, ...parse<{ message?: MessageAnswerBody }>(data).message?.usage };
        else if (type === "message_delta") usage = { ...usage, ...parse<MessageAnswerBody>(data).usage };
        else if (type === "message_stop") state.ended = true;
        else if (type === "error") state.failed = true;
        else if (keepText && type === "content_block_delta") state.text += parse<{ delta?: { text?: string } }>(data).delta?.text ?? "";
        state.usage = messagesReportedUsage(usage);
        return true;
      },
    });
  },
  failEvent: (error) => ({ event: "error", data: JSON.stringify(anthropicError(error)) }),
};
