import type { TextUsage } from "./text";
import { providerEvents, sendToProvider, upstreamFailure, type ProviderCall, type UpstreamProvider } from "../upstream/send";
import type { ServerSentEvent } from "../upstream/sse-events";
import type { GatewayError } from "../errors";
import type { ProviderWire } from "../upstream/send";

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
 * A text wire relayed unchanged to a provider of the same wire: where it goes, the few fields the
 * gateway owns in the body, and how its answers are read for metering.
 */
export interface RelayWire {
  providerWire: ProviderWire;
  /** The path at the provider, after its base URL. */
  path: string;
  /**
   * The client's body with what the gateway owns set: `model` (the route's), a bound on output
   * tokens when `bound` is given and the client set none, usage asked of a stream.
   */
  body(body: Record<string, unknown>, model: string, bound: number | undefined, stream: boolean): Record<string, unknown>;
  /** Usage and generated text of a whole answer. */
  readAnswer(json: unknown): { usage: Partial<TextUsage>; text: string };
  watch(clientAskedUsage: boolean, keepText: boolean): StreamWatch;
  /** An error after the stream started, as the wire's error event. */
  failEvent(error: GatewayError): ServerSentEvent;
}

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
  const call: ProviderCall = {
    path: wire.path,
    model: route.model,
    stream: request.stream,
    body: wire.body(request.body, route.model, request.bound, request.stream),
    clientHeaders: request.clientHeaders,
  };
  const answer = await sendToProvider(provider, call, signal);
  try {
    if (!request.stream) {
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const { usage, text } = wire.readAnswer(JSON.parse(bytes.toString("utf8")));
      const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/json";
      return { kind: "whole", bytes, contentType, usage, text: request.keepText ? text : "" };
    }
    const events = providerEvents(provider, answer, call)[Symbol.asyncIterator]();
    const first = await events.next();
    if (first.done) throw new Error("the stream ended before its first event");
    return { kind: "stream", first: first.value, rest: events, watch: wire.watch(request.clientAskedUsage, request.keepText), provider };
  } catch (error) {
    answer.body.destroy();
    throw upstreamFailure(provider, error);
  }
}
