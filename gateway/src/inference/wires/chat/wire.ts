import type { ChatCompletionRequest } from "@gateway-keys/contract";
import type { TextWireRoles } from "../../text-wires";
import { chatWire } from "./answer";
import { chatCompletionOf, chatDeltasOf, type ChatAnswerBody } from "./provider-answer";
import { CHAT_RELAY } from "./relay";
import { readChatRequest, writeChatRequest } from "./request";

/** `POST /v1/chat/completions`: OpenAI's Chat Completions wire, in its three roles. */
export const CHAT_COMPLETIONS = {
  client: {
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
  },
  relay: CHAT_RELAY,
  /** The wire a conversation is translated to for an OpenAI-wire provider. */
  provider: {
    name: "OpenAI Chat Completions",
    imageDetail: true,
    path: "/chat/completions",
    write: writeChatRequest,
    completion: (json, usage) => chatCompletionOf(json as ChatAnswerBody, usage),
    deltas: chatDeltasOf,
  },
} satisfies TextWireRoles<ChatCompletionRequest>;
