import type { TextUsage } from "../../text";
import type { RelayWire } from "../../text-wires";
import type { ServerSentEvent } from "../../../upstream/sse-events";

/** Responses relayed unchanged to an OpenAI-wire provider. */
const parse = <T>(data: string): T => JSON.parse(data) as T;
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
  body({ model: _client, ...body }, bound) {
    return bound !== undefined && body.max_output_tokens == null ? { ...body, max_output_tokens: bound } : body;
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

