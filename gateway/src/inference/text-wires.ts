import type { ChatCompletionRequest, MessagesRequest, ResponsesRequest } from "@gateway-keys/contract";
import { CHAT_RELAY, MESSAGES_RELAY, RESPONSES_RELAY, type RelayWire } from "../upstream/relay-wires";
import type { Conversation } from "./text";
import type { ClientWire } from "./wires/client-wire";
import { chatWire } from "./wires/chat/answer";
import { readChatRequest } from "./wires/chat/request";
import { messagesWire } from "./wires/messages/answer";
import { readMessagesRequest } from "./wires/messages/request";
import { responsesWire } from "./wires/responses/answer";
import { readResponsesRequest } from "./wires/responses/request";
import type { TranslationTarget } from "./wires/translation";

/** A text wire's request envelope (contract/model-api): what every route of the wire reads. */
export type TextRequestBody = ChatCompletionRequest | ResponsesRequest | MessagesRequest;

/**
 * One text wire as the gateway serves it: what it reads of a request, how it is relayed to a
 * provider of the same wire, how it is read into a conversation for any other route, and how an
 * answer the gateway builds is written back.
 */
export interface TextWireSpec<Body extends TextRequestBody> {
  /** Relayed unchanged to a provider of this wire. */
  relay: RelayWire;
  /** The client's bound on output tokens, and the field that carries it. */
  bound(body: Body): { value: number; param: string } | undefined;
  /** Whether the client asked a stream for its usage (Chat Completions' `stream_options.include_usage`; the others always carry it). */
  clientAskedUsage(body: Body): boolean;
  /** The request as a conversation, for a built-in model or a provider of another wire; refuses what it cannot carry. */
  read(body: Body, target: TranslationTarget, boundWhenUnset: number): Conversation;
  clientWire(body: Body, nowMs: number): ClientWire<unknown>;
}

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

export const RESPONSES: TextWireSpec<ResponsesRequest> = {
  relay: RESPONSES_RELAY,
  bound: (body) => (body.max_output_tokens == null ? undefined : { value: body.max_output_tokens, param: "max_output_tokens" }),
  clientAskedUsage: () => true,
  read: readResponsesRequest,
  clientWire: responsesWire,
};

export const MESSAGES: TextWireSpec<MessagesRequest> = {
  relay: MESSAGES_RELAY,
  bound: (body) => ({ value: body.max_tokens, param: "max_tokens" }),
  clientAskedUsage: () => true,
  read: (body, target) => readMessagesRequest(body, target),
  clientWire: () => messagesWire(),
};
