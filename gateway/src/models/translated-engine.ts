import type { Conversation, TextEngine, TextUsage } from "../inference/text";
import { chatCompletionOf, chatDeltasOf, type ChatAnswerBody } from "../inference/wires/chat/provider-answer";
import { writeChatRequest } from "../inference/wires/chat/request";
import { messagesCompletionOf, messagesDeltasOf, type MessageAnswerBody } from "../inference/wires/messages/provider-answer";
import { writeMessagesRequest } from "../inference/wires/messages/request";
import { providerTarget, type TranslationTarget, type UnsupportedFields } from "../inference/translation";
import { estimateConversationTokens } from "../inference/input-estimate";
import { providerEvents, readJson, sendToProvider, upstreamFailure, type ProviderCall, type UpstreamProvider } from "../upstream/provider";

const WIRE_NAMES = { openai: "OpenAI Chat Completions", anthropic: "Anthropic Messages" } as const;

/**
 * Each count a provider left out of its usage, taken at the request's bound: the input as the
 * gateway estimates it, and the most output tokens the request allowed. Those are the figures the
 * reservation was made from, so a provider that reports no usage is charged the reservation —
 * never nothing (docs/api.md, "Metering").
 */
function usageFiller(conversation: Conversation): (reported: Partial<TextUsage>) => TextUsage {
  return (reported) => ({
    ...reported,
    inputTokens: reported.inputTokens ?? estimateConversationTokens(conversation),
    outputTokens: reported.outputTokens ?? conversation.maxOutputTokens,
  });
}

/**
 * A chat model at a provider of another wire than the client's: the conversation written on the
 * provider's wire (Chat Completions for an OpenAI-wire provider, Messages for an Anthropic one)
 * and its answer read back, whole or streamed. `clientHeaders`: the client's wire headers, passed
 * on where the provider's wire defines them.
 */
export function translatedEngine(
  provider: UpstreamProvider,
  upstreamModel: string,
  publicModelId: string,
  unsupportedFields: UnsupportedFields,
): TextEngine & { target: TranslationTarget } {
  // Of the wires, only Chat Completions has a setting for an image's detail.
  const target = providerTarget(WIRE_NAMES[provider.wire], publicModelId, { imageDetail: provider.wire === "openai", unsupportedFields });
  const openai = provider.wire === "openai";
  const path = openai ? "/chat/completions" : "/v1/messages";
  const call = (conversation: Conversation, stream: boolean): ProviderCall => ({
    path,
    model: upstreamModel,
    stream,
    body: openai ? writeChatRequest(conversation, upstreamModel, stream, target) : writeMessagesRequest(conversation, upstreamModel, stream, target),
  });
  return {
    target,
    check: (conversation) => void call(conversation, false),
    async complete(conversation, signal) {
      const answer = await sendToProvider(provider, call(conversation, false), signal);
      const json = await readJson<ChatAnswerBody & MessageAnswerBody>(provider, answer);
      try {
        return openai ? chatCompletionOf(json, usageFiller(conversation)) : messagesCompletionOf(json, usageFiller(conversation));
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
    },
    async *stream(conversation, signal) {
      const streamed = call(conversation, true);
      const answer = await sendToProvider(provider, streamed, signal);
      const events = providerEvents(provider, answer, streamed);
      try {
        yield* openai ? chatDeltasOf(events, usageFiller(conversation)) : messagesDeltasOf(events, usageFiller(conversation));
      } catch (error) {
        throw upstreamFailure(provider, error);
      }
    },
  };
}
