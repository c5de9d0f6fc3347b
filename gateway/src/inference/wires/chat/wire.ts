import type { ChatCompletionRequest } from "@gateway-keys/contract";
import type { TextWireSpec } from "../../text-wires";
import { chatWire } from "./answer";
import { CHAT_RELAY } from "./relay";
import { readChatRequest } from "./request";

/** `POST /v1/chat/completions`: OpenAI's Chat Completions wire. */
export const CHAT_COMPLETIONS: TextWireSpec<ChatCompletionRequest> = {
  relay: CHAT_RELAY,
  bound: (body) => {
    const value = body.max_completion_tokens ?? body.max_tokens;
    return value == null ? undefined : { value, param: body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens" };
  },
  clientAskedUsage: (body) => body.stream_options?.include_usage === true,
  read: readChatRequest,
  clientWire: (body, nowMs) => chatWire(body.stream_options?.include_usage === true, nowMs),
};

