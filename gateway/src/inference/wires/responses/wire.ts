import type { ResponsesRequest } from "@gateway-keys/contract";
import type { TextWireRoles } from "../../text-wires";
import { responsesWire } from "./answer";
import { RESPONSES_RELAY } from "./relay";
import { readResponsesRequest } from "./request";

/**
 * `POST /v1/responses`: OpenAI's Responses wire, as a client and relayed. It has no provider side:
 * a Responses request for a provider of another wire (or an OpenAI-wire one without Responses) is
 * translated to that wire's provider side (Chat Completions, Messages, Converse).
 */
export const RESPONSES = {
  client: {
    bound: (body) => (body.max_output_tokens == null ? undefined : { value: body.max_output_tokens, param: "max_output_tokens" }),
    choices: () => 1,
    clientAskedUsage: () => true,
    read: readResponsesRequest,
    clientWire: responsesWire,
  },
  relay: RESPONSES_RELAY,
} satisfies TextWireRoles<ResponsesRequest>;
