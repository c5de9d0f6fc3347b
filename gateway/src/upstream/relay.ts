import type { TextUsage } from "../inference/text";
import { providerHeaders, sendToProvider, upstreamFailure, type UpstreamProvider } from "./provider";
import type { RelayWire, StreamWatch } from "./relay-wires";
import { serverSentEvents, type ServerSentEvent } from "./sse-events";

/** A route whose provider speaks the client's wire: the request goes as the client sent it, but for what the gateway owns. */
export interface RelayRoute {
  provider: UpstreamProvider;
  /** The model id at the provider. */
  model: string;
}

export interface RelayRequest {
  wire: RelayWire;
  body: Record<string, unknown>;
  /** The bound on output tokens to set when the client set none (the spend policy needs one), else undefined. */
  bound: number | undefined;
  stream: boolean;
  clientHeaders: Record<string, string | string[] | undefined>;
  clientAskedUsage: boolean;
  keepText: boolean;
}

/** A whole answer, as the provider sent it: its bytes go to the client untouched. */
export interface RelayedAnswer {
  kind: "whole";
  bytes: Buffer;
  contentType: string;
  usage: Partial<TextUsage>;
  text: string;
}

/** A stream whose first event has arrived (so the route answered); the rest follows as the client reads. */
export interface RelayedStream {
  kind: "stream";
  first: ServerSentEvent;
  rest: AsyncIterator<ServerSentEvent>;
  watch: StreamWatch;
  provider: UpstreamProvider;
}

/**
 * Sends a request to a provider of its own wire and waits for the answer — whole, or a stream's
 * first event, until which another route may still be tried. Nothing of the answer is re-encoded.
 */
export async function openRelay(route: RelayRoute, request: RelayRequest, signal: AbortSignal): Promise<RelayedAnswer | RelayedStream> {
  const { wire } = request;
  const { provider } = route;
  const body = JSON.stringify(wire.body(request.body, route.model, request.bound, request.stream));
  const answer = await sendToProvider(provider, wire.path, providerHeaders(provider, request.clientHeaders), body, signal);
  try {
    if (!request.stream) {
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const { usage, text } = wire.readAnswer(JSON.parse(bytes.toString("utf8")));
      const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/json";
      return { kind: "whole", bytes, contentType, usage, text: request.keepText ? text : "" };
    }
    const events = serverSentEvents(answer.body)[Symbol.asyncIterator]();
    const first = await events.next();
    if (first.done) throw new Error("the stream ended before its first event");
    return { kind: "stream", first: first.value, rest: events, watch: wire.watch(request.clientAskedUsage, request.keepText), provider };
  } catch (error) {
    answer.body.destroy();
    throw upstreamFailure(provider, error);
  }
}
