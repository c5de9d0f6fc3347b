import type { ChatCompletionRequest, MessagesRequest, ResponsesRequest } from "@gateway-keys/contract";
import type { RelayWire } from "./relay";
import type { Conversation } from "./text";
import type { ClientWire } from "./client-wire";
import type { TranslationTarget } from "./translation";

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
  /**
   * How many answers the request asks for, each up to the bound (Chat Completions' `n`; 1 on the
   * other wires): a relayed request's output can be this many times its bound.
   */
  choices(body: Body): number;
  /** Whether the client asked a stream for its usage (Chat Completions' `stream_options.include_usage`; the others always carry it). */
  clientAskedUsage(body: Body): boolean;
  /** The request as a conversation, for a built-in model or a provider of another wire; refuses what it cannot carry. */
  read(body: Body, target: TranslationTarget, boundWhenUnset: number): Conversation;
  clientWire(body: Body, nowMs: number): ClientWire<unknown>;
}
