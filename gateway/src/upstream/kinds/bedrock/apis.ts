import type { ServerSentEvent } from "../../sse-events";
import type { ProviderCall, ProviderWire } from "../../upstream-provider";
import { jsonBody } from "../common";
import type { StreamEvent } from "./event-stream";

/**
 * The two Bedrock runtime APIs a provider of kind `bedrock` speaks (its `api`), each as a wire
 * the rest of the gateway already knows: where a call goes under `/model/{modelId}/`, its body,
 * and how the decoded event-stream messages become the wire's events.
 */
export interface BedrockApi {
  wire: ProviderWire;
  /** The operation after `/model/{modelId}/`, and the body as Bedrock takes it. */
  request(call: ProviderCall): { operation: string; body: Record<string, unknown> };
  events(events: AsyncIterable<StreamEvent>): AsyncIterable<ServerSentEvent>;
}

/** The Messages API version Bedrock's Anthropic models take, in the body. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/**
 * Converse and ConverseStream: the gateway's `converse` wire (inference/wires/converse). Each
 * stream message is handed on as an event named by its `:event-type`, its payload the data.
 */
const CONVERSE: BedrockApi = {
  wire: "converse",
  request: (call) => ({ operation: call.stream ? "converse-stream" : "converse", body: jsonBody(call, "Bedrock") }),
  async *events(events) {
    for await (const { type, payload } of events) yield { event: type, data: payload };
  },
};

/** The client's `anthropic-beta` header (comma-separated names) as the body's list. */
function betasOf(call: ProviderCall): string[] | undefined {
  const header = call.clientHeaders?.["anthropic-beta"];
  const names = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return names.length > 0 ? names : undefined;
}

/**
 * Anthropic's models through InvokeModel / InvokeModelWithResponseStream: the Messages wire, so a
 * Messages request is relayed as sent and the others are translated to it. The body is the
 * Messages body (whose model is in the path) without `stream` (in the operation), with Bedrock's
 * `anthropic_version`; the stream's `chunk` messages carry the Messages events' JSON in base64
 * `bytes`, handed on as those events.
 */
const INVOKE_ANTHROPIC: BedrockApi = {
  wire: "anthropic",
  request(call) {
    if (call.path !== "/v1/messages") throw new Error(`Bedrock's InvokeModel carries the Messages API only, not ${call.path}`);
    const { stream: _stream, ...rest } = jsonBody(call, "Bedrock");
    const betas = betasOf(call);
    return {
      operation: call.stream ? "invoke-with-response-stream" : "invoke",
      body: { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas && { anthropic_beta: betas }) },
    };
  },
  async *events(events) {
    for await (const { type, payload } of events) {
      if (type !== "chunk") continue;
      const data = Buffer.from((JSON.parse(payload) as { bytes?: string }).bytes ?? "", "base64").toString("utf8");
      yield { event: (JSON.parse(data) as { type?: string }).type, data };
    }
  },
};

export const BEDROCK_APIS = { converse: CONVERSE, "invoke-anthropic": INVOKE_ANTHROPIC } as const;
export type BedrockApiName = keyof typeof BEDROCK_APIS;
