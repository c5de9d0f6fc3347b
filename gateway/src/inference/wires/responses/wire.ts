import type { ResponsesRequest } from "@gateway-keys/contract";
import type { TextWireSpec } from "../../text-wires";
import { responsesWire } from "./answer";
import { RESPONSES_RELAY } from "./relay";
import { readResponsesRequest } from "./request";

/** `POST /v1/responses`: OpenAI's Responses wire. */
export const RESPONSES: TextWireSpec<ResponsesRequest> = {
  relay: RESPONSES_RELAY,
  bound: (body) => (body.max_output_tokens == null ? undefined : { value: body.max_output_tokens, param: "max_output_tokens" }),
  choices: () => 1,
  clientAskedUsage: () => true,
  read: readResponsesRequest,
  clientWire: responsesWire,
};

