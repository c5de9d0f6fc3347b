import type { ProviderExchangeName, ProviderWire } from "../../upstream/send";
import type { ProviderExchange } from "../media-wire";
import type { ProviderTextRole } from "../text-wires";
import { CHAT_COMPLETIONS } from "./chat/wire";
import { CONVERSE } from "./converse/wire";
import { titanEmbeddings } from "./embeddings/titan";
import { MESSAGES } from "./messages/wire";

/**
 * The provider side of each wire a kind can speak (upstream-provider.ts's ProviderWire): what a
 * conversation is translated to for a provider of that wire — Chat Completions for an OpenAI-wire
 * provider, Messages for an Anthropic one, Converse for a Bedrock Converse one.
 */
export const PROVIDER_TEXT_WIRES: Readonly<Record<ProviderWire, ProviderTextRole>> = {
  openai: CHAT_COMPLETIONS.provider,
  anthropic: MESSAGES.provider,
  converse: CONVERSE.provider,
};

/** The exchanges a kind may name for a media operation it answers in another shape than the client's wire. */
export const PROVIDER_EXCHANGES: Readonly<Record<ProviderExchangeName, ProviderExchange>> = {
  "titan-embeddings": titanEmbeddings,
};
