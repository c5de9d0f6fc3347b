import type { Conversation, TextCompletion, TextDelta, TextEngine, TextUsage } from "../inference/text";
import { chatCompletionOf, chatDeltasOf, type ChatAnswerBody } from "../inference/wires/chat/provider-answer";
import { writeChatRequest } from "../inference/wires/chat/request";
import { messagesCompletionOf, messagesDeltasOf, type MessageAnswerBody } from "../inference/wires/messages/provider-answer";
import { writeMessagesRequest } from "../inference/wires/messages/request";
import { converseCompletionOf, converseDeltasOf, type ConverseAnswerBody } from "../inference/wires/converse/provider-answer";
import { writeConverseRequest } from "../inference/wires/converse/request";
import { providerTarget, type TranslationTarget, type UnsupportedFields } from "../inference/translation";
import { estimateConversationTokens } from "../inference/input-estimate";
import type { ServerSentEvent } from "../upstream/sse-events";
import { providerEvents, readJson, sendToProvider, upstreamFailure, type ProviderCall, type ProviderWire, type UpstreamProvider } from "../upstream/send";

type UsageFiller = (reported: Partial<TextUsage>) => TextUsage;

/** How a conversation is written on a provider's wire, and its answer read back. */
interface ProviderTextWire {
  name: string;
  /** Whether the wire has a setting for an image's detail (elsewhere a detail is a hint: dropped and named). */
  imageDetail: boolean;
  /** The operation's path as the wire names it (the kind says where it goes). */
  path: string;
  write(conversation: Conversation, model: string, stream: boolean, target: TranslationTarget): Record<string, unknown>;
  completion(json: unknown, usage: UsageFiller): TextCompletion;
  deltas(events: AsyncIterable<ServerSentEvent>, usage: UsageFiller): AsyncIterable<TextDelta>;
}

const PROVIDER_TEXT_WIRES: Record<ProviderWire, ProviderTextWire> = {
  openai: {
    name: "OpenAI Chat Completions",
    imageDetail: true,
    path: "/chat/completions",
    write: writeChatRequest,
    completion: (json, usage) => chatCompletionOf(json as ChatAnswerBody, usage),
    deltas: chatDeltasOf,
  },
  anthropic: {
    name: "Anthropic Messages",
    imageDetail: false,
    path: "/v1/messages",
    write: writeMessagesRequest,
    completion: (json, usage) => messagesCompletionOf(json as MessageAnswerBody, usage),
    deltas: messagesDeltasOf,
  },
  converse: {
    name: "Amazon Bedrock Converse",
    imageDetail: false,
    path: "/converse",
    // The model and whether to stream are in the path, not the body.
    write: (conversation, _model, _stream, target) => writeConverseRequest(conversation, target),
    completion: (json, usage) => converseCompletionOf(json as ConverseAnswerBody, usage),
    deltas: converseDeltasOf,
  },
};

/**
 * Each count a provider left out of its usage, taken at the request's bound: the input as the
 * gateway estimates it, and the most output tokens the request allowed. Those are the figures the
 * reservation was made from, so a provider that reports no usage is charged the reservation —
 * never nothing (docs/operators/upstream.md#families-fallback-errors-and-billing).
 */
function usageFiller(conversation: Conversation): UsageFiller {
  return (reported) => ({
    ...reported,
    inputTokens: reported.inputTokens ?? estimateConversationTokens(conversation),
    outputTokens: reported.outputTokens ?? conversation.maxOutputTokens,
  });
}

/**
 * A chat model at a provider of another wire than the client's: the conversation written on the
 * provider's wire (Chat Completions for an OpenAI-wire provider, Messages for an Anthropic one,
 * Converse for a Bedrock Converse one) and its answer read back, whole or streamed.
 */
export function translatedEngine(
  provider: UpstreamProvider,
  upstreamModel: string,
  publicModelId: string,
  unsupportedFields: UnsupportedFields,
): TextEngine & { target: TranslationTarget } {
  const wire = PROVIDER_TEXT_WIRES[provider.wire];
  const target = providerTarget(wire.name, publicModelId, { imageDetail: wire.imageDetail, unsupportedFields });
  const call = (conversation: Conversation, stream: boolean): ProviderCall => ({
    path: wire.path,
    model: upstreamModel,
    stream,
    body: wire.write(conversation, upstreamModel, stream, target),
  });
  return {
    target,
    check: (conversation) => void call(conversation, false),
    async complete(conversation, signal) {
      const answer = await sendToProvider(provider, call(conversation, false), signal);
      const json = await readJson<unknown>(provider, answer);
      try {
        return wire.completion(json, usageFiller(conversation));
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
    },
    async *stream(conversation, signal) {
      const streamed = call(conversation, true);
      const answer = await sendToProvider(provider, streamed, signal);
      const events = providerEvents(provider, answer, streamed);
      try {
        yield* wire.deltas(events, usageFiller(conversation));
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
    },
  };
}
