import type { TextUsage } from "../../text";
import type { RelayWire } from "../../text-wires";
import type { ServerSentEvent } from "../../../upstream/sse-events";
import { chatReportedUsage, type ChatAnswerBody } from "./provider-answer";

/** Chat Completions relayed unchanged to an OpenAI-wire provider. */
const parse = <T>(data: string): T => JSON.parse(data) as T;
/** A chunk that carries usage totals (the others, when usage was asked, carry `"usage":null`). */
const USAGE_OBJECT = /"usage":\s*\{/;

export const CHAT_RELAY: RelayWire = {
  providerWire: "openai",
  path: "/chat/completions",
  body(client, bound, stream) {
    // One copy of the client's body, its fields in their order: `model` out, the gateway's set.
    const { model: _client, ...body } = client;
    if (bound !== undefined && body.max_tokens == null && body.max_completion_tokens == null) body.max_completion_tokens = bound;
    if (stream) body.stream_options = { ...(body.stream_options !== null && typeof body.stream_options === "object" ? body.stream_options : {}), include_usage: true };
    return body;
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

