import type { ProviderTextRole } from "../../text-wires";
import { converseCompletionOf, converseDeltasOf, type ConverseAnswerBody } from "./provider-answer";
import { writeConverseRequest } from "./request";

/**
 * Amazon Bedrock's Converse API: a provider wire only (no route of the gateway speaks it), so its
 * one role is the provider side a conversation is translated to.
 */
export const CONVERSE = {
  provider: {
    name: "Amazon Bedrock Converse",
    imageDetail: false,
    path: "/converse",
    // Whether to stream is in the path, not the body.
    write: (conversation, _stream, target) => writeConverseRequest(conversation, target),
    completion: (json, usage) => converseCompletionOf(json as ConverseAnswerBody, usage),
    deltas: converseDeltasOf,
  },
} satisfies { provider: ProviderTextRole };
