import type { MessagesRequest } from "@gateway-keys/contract";
import type { TextWireSpec } from "../../text-wires";
import { messagesWire } from "./answer";
import { MESSAGES_RELAY } from "./relay";
import { readMessagesRequest } from "./request";

/** `POST /v1/messages`: Anthropic's Messages wire. */
export const MESSAGES: TextWireSpec<MessagesRequest> = {
  relay: MESSAGES_RELAY,
  bound: (body) => ({ value: body.max_tokens, param: "max_tokens" }),
  choices: () => 1,
  clientAskedUsage: () => true,
  read: (body, target) => readMessagesRequest(body, target),
  clientWire: () => messagesWire(),
};
