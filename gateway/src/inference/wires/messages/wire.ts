import type { MessagesRequest } from "@gateway-keys/contract";
import type { TextWireRoles } from "../../text-wires";
import { messagesWire } from "./answer";
import { messagesCompletionOf, messagesDeltasOf, type MessageAnswerBody } from "./provider-answer";
import { MESSAGES_RELAY } from "./relay";
import { readMessagesRequest, writeMessagesRequest } from "./request";

/** `POST /v1/messages`: Anthropic's Messages wire, in its three roles. */
export const MESSAGES = {
  client: {
    bound: (body) => ({ value: body.max_tokens, param: "max_tokens" }),
    choices: () => 1,
    clientAskedUsage: () => true,
    read: (body, target) => readMessagesRequest(body, target),
    clientWire: () => messagesWire(),
  },
  relay: MESSAGES_RELAY,
  /** The wire a conversation is translated to for an Anthropic-wire provider. */
  provider: {
    name: "Anthropic Messages",
    imageDetail: false,
    path: "/v1/messages",
    write: writeMessagesRequest,
    completion: (json, usage) => messagesCompletionOf(json as MessageAnswerBody, usage),
    deltas: messagesDeltasOf,
  },
} satisfies TextWireRoles<MessagesRequest>;
