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
  // `n` is the provider's to check (a relay relays); a value it would refuse reserves one answer.
  choices: (body) => {
    const n: unknown = (body as { n?: unknown }).n;
    return typeof n === "number" && Number.isSafeInteger(n) && n > 1 ? n : 1;
  },
  clientAskedUsage: (body) => body.stream_options?.include_usage === true,
  read: readChatRequest,
  clientWire: (body, nowMs) => chatWire(body.stream_options?.include_usage === true, nowMs),
};

