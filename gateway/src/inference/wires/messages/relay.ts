import type { TextUsage } from "../../text";
import type { RelayWire } from "../../text-wires";
import type { ServerSentEvent } from "../../../upstream/sse-events";
import { anthropicError } from "../../../errors";
import { messagesReportedUsage, type MessageAnswerBody } from "./provider-answer";

/** Messages relayed unchanged to an Anthropic-wire provider. */
const parse = <T>(data: string): T => JSON.parse(data) as T;
export const MESSAGES_RELAY: RelayWire = {
  providerWire: "anthropic",
  path: "/v1/messages",
  body: ({ model: _client, ...body }) => body,
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
