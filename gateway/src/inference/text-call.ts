import type { FastifyReply } from "fastify";
import { COST_HEADER, formatUnits } from "@gateway-keys/contract";
import type { GatewayContext } from "../context";
import { GatewayError } from "../errors";
import type { CatalogModel } from "../models/catalog";
import type { StoredApiKey } from "../store/types";
import { MeteredCall } from "./metered-call";
import { SseStream } from "./sse";
import { promptText, type TextCompletion, type TextDelta, type TextPrompt } from "./text";
import { countTokens } from "./tokens";

/** What a text wire asks of its request, before any model runs. */
export interface TextAsk {
  /** Conversation and system text. */
  system: string | undefined;
  turns: TextPrompt["turns"];
  stopSequences: string[];
  /** The client's bound on generated tokens, and the field that carries it. */
  maxOutputTokens: { value: number; param: string } | undefined;
  stream: boolean;
}

/**
 * A text wire (Chat Completions, Responses, Messages): how its answer and its stream look. The
 * request side is a {@link TextAsk}; everything between — policies, metering, the model — is the
 * same for every wire ({@link runTextCall}).
 */
export interface TextWire<Answer> {
  answer(completion: TextCompletion, model: CatalogModel): Answer;
  /** Events before the first token. */
  open(sse: SseStream, model: CatalogModel, inputTokens: number): void;
  delta(sse: SseStream, text: string): void;
  /** Events after the last token, written once the charge is committed. */
  close(sse: SseStream, completion: TextCompletion, model: CatalogModel): void;
  /** An error after the stream started, in the wire's own error event. */
  fail(sse: SseStream, error: GatewayError): void;
}

function boundedPrompt(ask: TextAsk, model: CatalogModel): TextPrompt {
  const asked = ask.maxOutputTokens;
  if (asked && asked.value > model.maxOutputTokens) {
    throw new GatewayError(
      "validation_failed",
      `Invalid fields: ${asked.param}: must be at most ${model.maxOutputTokens} for model ${JSON.stringify(model.id)}.`,
      { param: asked.param },
    );
  }
  return { system: ask.system, turns: ask.turns, stopSequences: ask.stopSequences, maxOutputTokens: asked?.value ?? model.maxOutputTokens };
}

/**
 * Runs a text request on any wire: admits the model under the key's policies, reserves the most it
 * can cost, runs it whole or streamed, settles the actual cost and only then sends the answer (or
 * the stream's last events). A stream the client cuts, or that fails midway, is charged its
 * reservation. Returns the answer, or `undefined` once a stream has been written.
 */
export async function runTextCall<Answer>(
  ctx: GatewayContext,
  key: StoredApiKey,
  reply: FastifyReply,
  modelId: string,
  ask: TextAsk,
  wire: TextWire<Answer>,
): Promise<Answer | undefined> {
  const preview: TextPrompt = { system: ask.system, turns: ask.turns, stopSequences: ask.stopSequences, maxOutputTokens: 0 };
  const call = new MeteredCall(ctx, key, modelId, promptText(preview));
  const model = await call.admit("chat");
  const prompt = boundedPrompt(ask, model);
  const inputTokens = countTokens(promptText(prompt));
  await call.reserve(model, { inputTokens, outputTokens: prompt.maxOutputTokens });

  if (!ask.stream) {
    let completion: TextCompletion;
    try {
      completion = await model.engine.complete(prompt, new AbortController().signal);
    } catch (error) {
      await call.fail(502);
      throw error;
    }
    const costMicros = await call.succeed(model, completion.usage, completion.text);
    reply.header(COST_HEADER, formatUnits(costMicros));
    return wire.answer(completion, model);
  }

  const sse = new SseStream(reply);
  // The first piece is awaited before anything is written: until then a failure (an upstream
  // that refuses, after every route was tried) is still an ordinary error answer.
  const pieces = model.engine.stream(prompt, sse.signal)[Symbol.asyncIterator]();
  let next: IteratorResult<TextDelta>;
  try {
    next = await pieces.next();
  } catch (error) {
    await call.fail(error instanceof GatewayError ? error.statusCode : 502);
    throw error;
  }
  let text = "";
  let failure: GatewayError | undefined;
  try {
    wire.open(sse, model, inputTokens);
    for (; !next.done; next = await pieces.next()) {
      const delta = next.value;
      if (delta.kind === "text") {
        text += delta.text;
        wire.delta(sse, delta.text);
        continue;
      }
      await call.succeed(model, delta.completion.usage, delta.completion.text);
      wire.close(sse, delta.completion, model);
    }
  } catch (error) {
    reply.log.error({ err: error }, "a stream failed after it started");
    failure = error instanceof GatewayError ? error : new GatewayError("internal_error", "The model failed while streaming.");
  } finally {
    // Cut by the client, or failed before its end: the reservation is the charge, committed before
    // the error event goes out, as every answer waits for its charge.
    try {
      await call.chargeReservation(200, text);
    } finally {
      if (failure) wire.fail(sse, failure);
      sse.end();
    }
  }
  return undefined;
}
