import type { FastifyReply, FastifyRequest } from "fastify";
import { COST_HEADER, DROPPED_FIELDS_HEADER, ROUTE_HEADER, formatUnits } from "@gateway-keys/contract";
import type { GatewayContext } from "../context";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import type { ModelOf } from "../models/catalog";
import { upstreamFailure } from "../upstream/send";
import type { ServerSentEvent } from "../upstream/sse-events";
import { estimateConversationTokens, summariseRelayedRequest } from "../inference/input-estimate";
import { textRequestTokensBound } from "../inference/input-bound";
import { MeteredCall } from "./metered-call";
import { asDatabaseUnavailable } from "../store/faults";
import type { StoredApiKey } from "../store/types";
import { SseStream } from "../inference/sse";
import { answerText, promptText, type Conversation, type TextDelta, type TextUsage } from "../inference/text";
import type { TranslationTarget } from "../inference/translation";
import type { TextClientRole, TextRequestBody, TextWireRoles } from "../inference/text-wires";
import { attemptRoutes, bothObservers } from "../dispatch/attempts";
import { attemptSpans } from "../telemetry/attempt-spans";
import { GEN_AI_OPERATION } from "../telemetry/genai";
import { traceContextOf } from "../telemetry/request-spans";
import { checkTextRoute, openTextRoute, type OpenedText, type RelayedStream, type TextAttempt } from "../dispatch/call-route";
import { chooseTextRoutes, type TextRoute } from "../dispatch/choose-route";

type ChatModel = ModelOf<"chat">;

/** What the request is, for the routes that relay it and those that read it. */
interface TextCall<Body extends TextRequestBody> {
  wire: TextWireRoles<Body>;
  body: Body;
  stream: boolean;
  /** The conversation, once a route that is not a relay needed it. */
  conversation: Conversation | undefined;
  /** The output bound of a request that set none: the model's, or what the key's budget affords. */
  boundWhenUnset: number;
}

/** The request as a conversation, read once, for the first route that is not a relay. */
function conversationFor<Body extends TextRequestBody>(call: TextCall<Body>, target: TranslationTarget): Conversation {
  call.conversation ??= call.wire.client.read(call.body, target, call.boundWhenUnset);
  return call.conversation;
}

/** The client's bound, refused (400 naming its field) above the model's. */
function checkedBound(bound: { value: number; param: string } | undefined, model: ChatModel): number | undefined {
  if (bound && bound.value > model.maxOutputTokens) {
    throw new GatewayError("validation_failed", `Invalid fields: ${bound.param}: must be at most ${model.maxOutputTokens} for model ${JSON.stringify(model.id)}.`, { param: bound.param });
  }
  return bound?.value;
}

/**
 * Runs a text request on any wire (docs/operators/upstream.md#upstream-providers): checks it against the
 * model's first route before anything is metered, admits the model under the key's policies,
 * reserves the most it can cost, then tries the model's routes (dispatch/) until one answers — each
 * relayed as sent to a provider of the client's wire, or read into a conversation for a built-in
 * model or a provider of another wire. It settles the actual cost and only then sends the answer
 * (or a stream's last event). A stream the client cuts, or that fails midway, is charged its
 * input and its whole output bound. Returns the answer the route's schema serialises, or the reply once written.
 */
export async function runTextCall<Body extends TextRequestBody>(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  wire: TextWireRoles<Body>,
  body: Body,
): Promise<unknown> {
  const key = apiKeyOf(request);
  const client = wire.client;
  // The model is looked up once, here, and handed on: to admission, to the choice of its routes.
  const known = ctx.models.get(body.model);
  const call: TextCall<Body> = {
    wire,
    body,
    stream: body.stream === true,
    conversation: undefined,
    boundWhenUnset: known?.family === "chat" ? known.maxOutputTokens : 0,
  };
  const plan = await ctx.router.plan(body.model, known?.routing, known?.family === "chat" ? known.routes.length : 0);
  const routes: TextRoute[] = known?.family === "chat" ? chooseTextRoutes(known.routes, wire.relay, plan.order) : [];
  const attempt: TextAttempt = {
    body: body as unknown as Record<string, unknown>,
    stream: call.stream,
    bound: undefined,
    clientHeaders: request.headers,
    clientAskedUsage: client.clientAskedUsage(body),
    keepText: key.loggingPolicy.storeResponse,
    conversation: (target) => conversationFor(call, target),
  };

  // A request the model's first route cannot carry is refused like any invalid field: before
  // it is metered or logged. (A later route refuses it as it writes the request, before
  // sending anything, and that route is skipped.)
  if (routes[0]) checkTextRoute(routes[0], attempt);
  const { metered, inputTokens } = meteredCallFor(ctx, reply, key, call);
  const model = await metered.admit("chat", known);
  const bound = checkedBound(client.bound(body), model);
  // A request without a bound gets the model's, or on a key that cannot afford it, what the key's budget affords.
  const input = { estimate: inputTokens, bound: inputTokensBound(model, body, inputTokens) };
  const choices = client.choices(body);
  const outputBound = await metered.reserveText(model, input, bound ?? model.maxOutputTokens, bound !== undefined, choices);
  if (bound === undefined) {
    call.boundWhenUnset = outputBound;
    if (call.conversation) call.conversation.maxOutputTokens = outputBound;
  }
  // The spend policy needs a bound upstream only when the key has a limit to keep.
  attempt.bound = bound === undefined && key.spendLimitMicros !== null ? outputBound : undefined;
  // Each count a provider leaves out of its usage is taken at the gateway's: its input count, the output bound (for each answer asked).
  const filled = (usage: Partial<TextUsage>): TextUsage => ({ ...usage, inputTokens: usage.inputTokens ?? inputTokens, outputTokens: usage.outputTokens ?? outputBound * choices });
  // A stream cut or failed before its end may have used its whole output bound, whatever it reported so far.
  const unfinished = (usage: Partial<TextUsage>): TextUsage => filled({ inputTokens: usage.inputTokens });

  const sse = call.stream ? new SseStream(reply) : undefined;
  const signal = sse?.signal ?? SseStream.clientGone(reply);
  let opened: OpenedText;
  try {
    const observer = bothObservers<TextRoute>(attemptSpans(ctx.tracing, traceContextOf(request), GEN_AI_OPERATION.chat, model.id, call.stream), plan.observer);
    plan.tokens = input.bound + outputBound * choices;
    const send = plan.attempt((route: TextRoute, headers) => openTextRoute(route, attempt, signal, headers));
    opened = await attemptRoutes(routes, send, { signal, skipLaterRefusals: true, observer });
  } catch (thrown) {
    const error = plan.failure(thrown);
    plan.finish();
    await metered.fail(error instanceof GatewayError ? error.statusCode : 502);
    throw error;
  }
  // The route that answered, named to the client and in the request log (a provider's name and model: never a credential).
  if (plan.chosen !== undefined) {
    reply.header(ROUTE_HEADER, plan.chosen);
    metered.noteRoute(plan.chosen);
  }
  try {
    return await answerOpened(ctx, request, reply, opened, { call, metered, model, client, body, sse, wire, filled, unfinished });
  } finally {
    plan.finish(metered.chargedTokens);
  }
}

/** What sending an opened answer needs of its request. */
interface AnswerParts<Body extends TextRequestBody> {
  call: TextCall<Body>;
  metered: MeteredCall;
  model: ChatModel;
  client: TextWireRoles<Body>["client"];
  body: Body;
  sse: SseStream | undefined;
  wire: TextWireRoles<Body>;
  filled: (usage: Partial<TextUsage>) => TextUsage;
  unfinished: (usage: Partial<TextUsage>) => TextUsage;
}

/** Sends the answer a route opened: whole, or streamed; each waits for its charge. */
async function answerOpened<Body extends TextRequestBody>(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  opened: OpenedText,
  { call, metered, model, client, body, sse, wire, filled, unfinished }: AnswerParts<Body>,
): Promise<unknown> {
  if ((opened.kind === "completion" || opened.kind === "deltas") && call.conversation!.dropped.size > 0) nameDropped([...call.conversation!.dropped], metered, request, reply);

  switch (opened.kind) {
    case "whole": {
      const costMicros = await metered.succeed(model, filled(opened.usage), opened.text || null);
      return reply.header(COST_HEADER, formatUnits(costMicros)).type(opened.contentType).send(opened.bytes);
    }
    case "completion": {
      const costMicros = await metered.succeed(model, opened.completion.usage, answerText(opened.completion.parts));
      reply.header(COST_HEADER, formatUnits(costMicros));
      return client.clientWire(body, ctx.now()).answer(opened.completion, model.id);
    }
    // A stream's span runs from its first piece to its last event (or its cut).
    case "stream":
      await ctx.tracing.inSpan("gateway.stream", traceContextOf(request), () => pipeRelayedStream(opened, sse!, metered, model, { filled, unfinished }, wire));
      return reply;
    case "deltas":
      await ctx.tracing.inSpan("gateway.stream", traceContextOf(request), () => writeStream(opened, sse!, metered, model, client.clientWire(body, ctx.now()), unfinished({}), reply));
      return reply;
  }
}

/**
 * The most input tokens the model's routes can count for the request, held by its reservation: the
 * gateway's own count when built-in engines serve every route (they count by the gateway's rule),
 * else the bound of inference/input-bound.ts, which holds whatever tokenizer a provider uses.
 */
function inputTokensBound(model: ChatModel, body: TextRequestBody, estimate: number): number {
  if (model.routes.every((route) => route.kind === "builtin")) return estimate;
  return Math.max(estimate, textRequestTokensBound(body as unknown as Record<string, unknown>, model.inputTokensPerImage));
}

/**
 * The request's metering, and its input tokens as the gateway counts them (the rate limit's figure). The prompt's text
 * is built here and handed to the call, which keeps it only for a key that logs requests: an open
 * stream (whose frame outlives every await) holds no copy of it.
 */
function meteredCallFor<Body extends TextRequestBody>(ctx: GatewayContext, reply: FastifyReply, key: StoredApiKey, call: TextCall<Body>): { metered: MeteredCall; inputTokens: number } {
  const summary = call.conversation
    ? { text: promptText(call.conversation), inputTokens: estimateConversationTokens(call.conversation) }
    : summariseRelayedRequest(call.body);
  return { metered: new MeteredCall(ctx, reply, key, call.body.model, summary.text), inputTokens: summary.inputTokens };
}

/** The client's fields that did not reach the model, named to the client, in its request log row and the process log (docs/operators/upstream.md#translation-by-meaning). */
function nameDropped(fields: string[], metered: MeteredCall, request: FastifyRequest, reply: FastifyReply): void {
  reply.header(DROPPED_FIELDS_HEADER, fields.join(", "));
  metered.noteDroppedFields(fields);
  request.log.info({ droppedFields: fields }, "request fields not carried to the model");
}

/** A stream's end when its charge could not be committed: the answer is not acknowledged. */
function chargeFailure(error: unknown): GatewayError {
  return asDatabaseUnavailable(error) ?? new GatewayError("internal_error", "The gateway could not record the answer's charge.");
}

/** Writes a stream the gateway builds in the client's wire; the last events wait for the charge. */
async function writeStream(
  opened: Extract<OpenedText, { kind: "deltas" }>,
  sse: SseStream,
  metered: MeteredCall,
  model: ChatModel,
  wire: ReturnType<TextClientRole<TextRequestBody>["clientWire"]>,
  unfinished: TextUsage,
  reply: FastifyReply,
): Promise<void> {
  const writer = wire.stream(sse, model.id, unfinished.inputTokens);
  let text = "";
  let failure: GatewayError | undefined;
  try {
    for (let next: IteratorResult<TextDelta> = { done: false, value: opened.first }; !next.done; next = await opened.rest.next()) {
      const delta = next.value;
      if (delta.kind !== "end") {
        if (delta.kind === "text") text += delta.text;
        writer.write(delta);
        continue;
      }
      await metered.succeed(model, delta.completion.usage, answerText(delta.completion.parts));
      writer.close(delta.completion);
    }
  } catch (error) {
    failure = error instanceof GatewayError ? error : asDatabaseUnavailable(error);
    if (!failure) {
      reply.log.error({ err: error }, "a stream failed after it started");
      failure = new GatewayError("internal_error", "The model failed while streaming.");
    } else reply.log.warn({ err: error }, "a stream ended with an error event");
  } finally {
    // Cut by the client, or failed before its end: its input and whole output bound are the charge,
    // committed before the error event goes out, as every answer waits for its charge.
    try {
      await metered.chargeUnfinished(model, 200, unfinished, text);
    } catch (error) {
      // The charge could not be committed: the answer is not acknowledged, its end is an error.
      failure ??= chargeFailure(error);
      reply.log.warn({ err: error }, "a stream's charge could not be committed");
    } finally {
      if (failure) writer.fail(failure);
      sse.end();
    }
  }
}

/**
 * Passes a provider's stream to the client event by event, as it came, reading from the provider
 * only as fast as the client reads (backpressure). The wire's last event waits for the charge.
 */
async function pipeRelayedStream<Body extends TextRequestBody>(
  opened: RelayedStream,
  sse: SseStream,
  metered: MeteredCall,
  model: ChatModel,
  usage: { filled: (usage: Partial<TextUsage>) => TextUsage; unfinished: (usage: Partial<TextUsage>) => TextUsage },
  wire: TextWireRoles<Body>,
): Promise<void> {
  const { watch } = opened;
  let held: ServerSentEvent | undefined;
  let failure: GatewayError | undefined;
  /** Passes one event on; returns a promise only when the client's socket is full (one per event would cost more than the event). */
  const pass = (event: ServerSentEvent): Promise<void> | undefined => {
    if (!watch.see(event)) return undefined;
    if (watch.ended) {
      held = event;
      return undefined;
    }
    return sse.sendEvent(event.event, event.data) ? undefined : sse.drained();
  };
  try {
    await pass(opened.first);
    while (!watch.ended && !watch.failed && !sse.cut) {
      const next = await opened.rest.next();
      if (next.done) break;
      const full = pass(next.value);
      if (full) await full;
    }
    if (watch.ended) {
      await metered.succeed(model, usage.filled(watch.usage), watch.text || null);
      sse.sendEvent(held!.event, held!.data);
    } else if (!watch.failed && !sse.cut) {
      failure = upstreamFailure(opened.provider, new Error("the stream ended before its last event"));
    }
  } catch (error) {
    // The charge failing to commit is the database's fault, not the provider's.
    failure = asDatabaseUnavailable(error) ?? upstreamFailure(opened.provider, error);
  } finally {
    await opened.rest.return?.();
    try {
      await metered.chargeUnfinished(model, 200, usage.unfinished(watch.usage), watch.text || null);
    } catch (error) {
      failure ??= chargeFailure(error);
    } finally {
      if (failure && !sse.cut) {
        const event = wire.relay.failEvent(failure);
        sse.sendEvent(event.event, event.data);
      }
      sse.end();
    }
  }
}
