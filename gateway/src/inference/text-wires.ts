import type { ChatCompletionRequest, MessagesRequest, ResponsesRequest } from "@gateway-keys/contract";
import type { GatewayError } from "../errors";
import type { ProviderWire } from "../upstream/send";
import type { ServerSentEvent } from "../upstream/sse-events";
import type { ClientWire } from "./client-wire";
import type { Conversation, TextCompletion, TextDelta, TextUsage } from "./text";
import type { TranslationTarget } from "./translation";

/** A text wire's request envelope (contract/model-api): what every route of the wire reads. */
export type TextRequestBody = ChatCompletionRequest | ResponsesRequest | MessagesRequest;

/**
 * The client side of a text wire: what the gateway reads of a request, how it is read into a
 * conversation for a route that does not relay it, and how an answer the gateway builds is written back.
 */
export interface TextClientRole<Body extends TextRequestBody> {
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

/**
 * What the gateway watches in a relayed stream: only what it needs — usage for the charge, the end
 * (or an error) for the log — parsing only the events that can carry them. The text is collected
 * only when the key's logging policy stores responses.
 */
export interface StreamWatch {
  /** Sees one event as it passes; false when it must not reach the client. */
  see(event: ServerSentEvent): boolean;
  /** The wire's last event was seen: the answer is complete (hold that event back until the charge commits). */
  readonly ended: boolean;
  /** The provider sent its wire's error event. */
  readonly failed: boolean;
  readonly usage: Partial<TextUsage>;
  readonly text: string;
}

/**
 * The relay side: a text wire relayed unchanged to a provider of the same wire — where it goes, the
 * few fields the gateway owns in the body, and how its answers are read for metering.
 */
export interface RelayWire {
  providerWire: ProviderWire;
  /** The path at the provider, after its base URL. */
  path: string;
  /**
   * The client's body with what the gateway owns set: a bound on output tokens when `bound` is
   * given and the client set none, usage asked of a stream; and without the client's `model`
   * (the route's travels beside the body: upstream-provider.ts's ProviderCall).
   */
  body(body: Record<string, unknown>, bound: number | undefined, stream: boolean): Record<string, unknown>;
  /** Usage and generated text of a whole answer. */
  readAnswer(json: unknown): { usage: Partial<TextUsage>; text: string };
  watch(clientAskedUsage: boolean, keepText: boolean): StreamWatch;
  /** An error after the stream started, as the wire's error event. */
  failEvent(error: GatewayError): ServerSentEvent;
}

/** Each count a provider left out of its usage, filled in by the gateway. */
export type UsageFiller = (reported: Partial<TextUsage>) => TextUsage;

/** The provider side: how a conversation is written on a provider's wire, and its answer read back. */
export interface ProviderTextRole {
  name: string;
  /** Whether the wire has a setting for an image's detail (elsewhere a detail is a hint: dropped and named). */
  imageDetail: boolean;
  /** The operation's path as the wire names it (the kind says where it goes). */
  path: string;
  /** The body (without `model`, which travels beside it); refuses what the wire cannot say. */
  write(conversation: Conversation, stream: boolean, target: TranslationTarget): Record<string, unknown>;
  completion(json: unknown, usage: UsageFiller): TextCompletion;
  deltas(events: AsyncIterable<ServerSentEvent>, usage: UsageFiller): AsyncIterable<TextDelta>;
}

/**
 * One text wire's roles, declared in one object by its folder (inference/wires/<wire>/wire.ts):
 * the client side (a route of the gateway), the relay to a provider of the same wire, and the
 * provider side a conversation is translated to (a wire that has one).
 */
export interface TextWireRoles<Body extends TextRequestBody> {
  client: TextClientRole<Body>;
  relay: RelayWire;
  provider?: ProviderTextRole;
}
