import type { MediaAnswer, MediaBody } from "../inference/media-wire";
import { estimateConversationTokens } from "../inference/input-estimate";
import type { Conversation, TextCompletion, TextDelta, TextEngine, TextUsage } from "../inference/text";
import type { StreamWatch, UsageFiller } from "../inference/text-wires";
import type { TranslationTarget } from "../inference/translation";
import { GatewayError } from "../errors";
import { MultipartForm, providerEvents, readJson, sendToProvider, upstreamFailure, type ProviderCall, type UpstreamProvider } from "../upstream/send";
import type { ServerSentEvent } from "../upstream/sse-events";
import type { MediaRoute, TextRoute } from "./choose-route";

/**
 * One attempt on one route: the built-in engine run in process, or the provider called — the
 * only module that sends to a provider (upstream/send.ts), for every family and route kind.
 */

/** A whole answer relayed as the provider sent it: its bytes go to the client untouched. */
export interface RelayedAnswer {
  kind: "whole";
  bytes: Buffer;
  contentType: string;
  usage: Partial<TextUsage>;
  text: string;
}

/** A relayed stream whose first event has arrived (so the route answered); the rest follows as the client reads. */
export interface RelayedStream {
  kind: "stream";
  first: ServerSentEvent;
  rest: AsyncIterator<ServerSentEvent>;
  watch: StreamWatch;
  provider: UpstreamProvider;
}

/** A text route's answer: relayed from a provider of the client's wire, or built (a built-in model's, a translated one). */
export type OpenedText =
  | RelayedAnswer
  | RelayedStream
  | { kind: "completion"; completion: TextCompletion }
  | { kind: "deltas"; first: TextDelta; rest: AsyncIterator<TextDelta> };

/** A text request, as every route kind takes it. */
export interface TextAttempt {
  /** The client's body: relayed as sent but for what the gateway owns. */
  body: Record<string, unknown>;
  stream: boolean;
  /** The bound on output tokens a relay sets when the client set none (the spend policy needs one), else undefined. */
  bound: number | undefined;
  clientHeaders: Record<string, string | string[] | undefined>;
  clientAskedUsage: boolean;
  keepText: boolean;
  /** The request as a conversation, for a route that reads it (built-in, translate). */
  conversation(target: TranslationTarget): Conversation;
}

/**
 * Refuses, before anything is metered, what the route could not carry (a field its wire cannot
 * say): a relay carries anything; the others are asked as they would write the request.
 */
export function checkTextRoute(route: TextRoute, attempt: TextAttempt): void {
  if (route.kind === "relay") return;
  const conversation = attempt.conversation(route.target);
  if (route.kind === "builtin") route.engine.check?.(conversation);
  else route.wire.write(conversation, false, route.target);
}

/**
 * Sends a text request on one route and waits for its answer: whole, or a stream's first piece
 * (until which another route may still be tried). `traceHeaders` go with every provider call.
 */
export async function openTextRoute(route: TextRoute, attempt: TextAttempt, signal: AbortSignal, traceHeaders?: Readonly<Record<string, string>>): Promise<OpenedText> {
  if (route.kind === "relay") return relayText(route, attempt, signal, traceHeaders);
  const conversation = attempt.conversation(route.target);
  const engine = route.kind === "builtin" ? route.engine : translatedEngine(route, traceHeaders);
  if (!attempt.stream) return { kind: "completion", completion: await engine.complete(conversation, signal) };
  const rest = engine.stream(conversation, signal)[Symbol.asyncIterator]();
  const first = await rest.next();
  if (first.done) throw new GatewayError("internal_error", "The model ended its stream without an answer.");
  return { kind: "deltas", first: first.value, rest };
}

/** Sends a request to a provider of its own wire. Nothing of the answer is re-encoded. */
async function relayText(
  route: Extract<TextRoute, { kind: "relay" }>,
  attempt: TextAttempt,
  signal: AbortSignal,
  traceHeaders: Readonly<Record<string, string>> | undefined,
): Promise<RelayedAnswer | RelayedStream> {
  const { provider, wire } = route;
  const call: ProviderCall = {
    path: wire.path,
    model: route.model,
    stream: attempt.stream,
    body: wire.body(attempt.body, attempt.bound, attempt.stream),
    clientHeaders: attempt.clientHeaders,
    traceHeaders,
  };
  const answer = await sendToProvider(provider, call, signal);
  try {
    if (!attempt.stream) {
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const { usage, text } = wire.readAnswer(JSON.parse(bytes.toString("utf8")));
      const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/json";
      return { kind: "whole", bytes, contentType, usage, text: attempt.keepText ? text : "" };
    }
    const events = providerEvents(provider, answer, call)[Symbol.asyncIterator]();
    const first = await events.next();
    if (first.done) throw new Error("the stream ended before its first event");
    return { kind: "stream", first: first.value, rest: events, watch: wire.watch(attempt.clientAskedUsage, attempt.keepText), provider };
  } catch (error) {
    answer.body.destroy();
    throw upstreamFailure(provider, error);
  }
}

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

/** A provider of another wire than the client's, as an engine: the conversation written on its wire, its answer read back, whole or streamed. */
function translatedEngine(route: Extract<TextRoute, { kind: "translate" }>, traceHeaders: Readonly<Record<string, string>> | undefined): TextEngine {
  const { provider, wire } = route;
  const call = (conversation: Conversation, stream: boolean): ProviderCall => ({
    path: wire.path,
    model: route.model,
    stream,
    body: wire.write(conversation, stream, route.target),
    traceHeaders,
  });
  return {
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

/** The body of a media call: the client's, but for its `model` (the route's travels beside it). */
function mediaCallBody(body: MediaBody): ProviderCall["body"] {
  if ("json" in body) {
    const { model: _client, ...json } = body.json;
    return json;
  }
  const { model: _client, ...fields } = body.form.fields;
  return new MultipartForm(fields, body.form.file);
}

/**
 * Sends a media request on one route: relayed, the provider's answer as it sent it; by exchange,
 * the answer its kind's exchange wrote.
 */
export async function callMediaRoute(
  route: MediaRoute,
  path: string,
  body: MediaBody,
  signal: AbortSignal,
  traceHeaders?: Readonly<Record<string, string>>,
): Promise<MediaAnswer> {
  const { provider } = route;
  const call: ProviderCall = { path, model: route.model, stream: false, body: mediaCallBody(body), traceHeaders };
  if (route.kind === "exchange") {
    const send = async (sent: ProviderCall) => readJson(provider, await sendToProvider(provider, sent, signal));
    return route.exchange(call, send).catch((error: unknown) => Promise.reject(upstreamFailure(provider, error)));
  }
  const answer = await sendToProvider(provider, call, signal);
  // A body cut short is the route's failure, like no answer at all.
  const bytes = await answer.body.arrayBuffer().then(Buffer.from, (error: unknown) => Promise.reject(upstreamFailure(provider, error)));
  const contentType = typeof answer.headers["content-type"] === "string" ? answer.headers["content-type"] : "application/octet-stream";
  return { bytes, contentType };
}
