import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BuiltInSpeechRequest, COST_HEADER, formatUnits, ModelName, ROUTES, Transcription, TranscriptionFields } from "@gateway-keys/contract";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import { MeteredCall } from "../pipeline/metered-call";
import { countTokens } from "../inference/tokens";
import { parseBody } from "../http/validation";
import { wavTranscriber } from "../models/builtin/audio";
import { costOf } from "../metering/pricing";
import { answerJson, relayMedia, type MediaAnswer } from "../pipeline/media-relay";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** The fields of a transcription for a forwarded model: its model; the rest passes to the provider as sent. */
const ForwardedTranscriptionFields = z.looseObject({ model: ModelName });

/**
 * The most seconds a forwarded transcription can be charged, known before it runs: a WAV's own
 * length, else its size at 6 kbit/s (750 bytes a second), below the bitrate of any speech codec
 * providers take, so the bound holds for any audio (docs/api.md, "Upstream providers").
 */
function transcriptionSecondsBound(audio: Buffer): number {
  try {
    return Math.max(1, Math.ceil(wavTranscriber.durationSeconds(audio)));
  } catch {
    return Math.max(1, Math.ceil(audio.length / 750));
  }
}

/** The seconds of audio a provider says it transcribed: `usage.seconds` (`type: "duration"`), or a verbose answer's `duration`. */
function reportedSeconds(answer: MediaAnswer): number | undefined {
  const json = answerJson(answer);
  const usage = json?.usage as { type?: string; seconds?: number } | undefined;
  const seconds = usage?.type === "duration" ? usage.seconds : (json?.duration as number | undefined);
  return typeof seconds === "number" && Number.isFinite(seconds) ? Math.ceil(seconds) : undefined;
}

/** Uploads for transcription: OpenAI's own limit. */
const AUDIO_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

/** `POST /v1/audio/speech` (binary audio out) and `POST /v1/audio/transcriptions` (multipart upload in). */
export const audioRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  await app.register(multipart, { limits: { fileSize: AUDIO_UPLOAD_LIMIT_BYTES, files: 1, fields: 16 } });

  const speechDoc = {
    responses: { 200: { description: "The audio: WAV (the default) or raw 16-bit PCM, as `response_format` asks.", content: { "audio/wav": "binary", "audio/pcm": "binary" } } },
  } as const;
  app.route({
    ...routeOf(ctx, ROUTES.speech, { config: { openapi: speechDoc } }),
    handler: async (request, reply) => {
      // A built-in model takes the fields it knows, checked before anything is metered.
      const builtIn = ctx.models.forwards(request.body.model) ? undefined : parseBody(BuiltInSpeechRequest, request.body);
      const call = new MeteredCall(ctx, reply, apiKeyOf(request), request.body.model, request.body.input);
      const model = await call.admit("speech");
      if (model.forwarded) {
        // Priced by the characters of the input (code points), the unit speech providers bill.
        const charge = costOf(model.pricing, { inputTokens: Array.from(request.body.input).length, outputTokens: 0 });
        return relayMedia(call, model.forwarded, { path: "/audio/speech", body: { json: request.body }, reserveMicros: charge, cost: () => charge }, reply);
      }
      const body = builtIn ?? parseBody(BuiltInSpeechRequest, request.body);
      const tokens = countTokens(body.input);
      const { result, costMicros } = await call.run(model, { inputTokens: tokens, outputTokens: tokens }, async () => {
        const spoken = await model.engine.synthesize(body.input, body.voice, body.speed ?? 1, body.response_format ?? "wav");
        return { result: spoken, usage: spoken.usage, output: null };
      });
      return reply.header(COST_HEADER, formatUnits(costMicros)).type(result.contentType).send(result.audio);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.transcriptions, {
      bodyLimit: AUDIO_UPLOAD_LIMIT_BYTES,
      // Read from the multipart parts in the handler, so documented here rather than validated by Fastify.
      config: {
        openapi: {
          requestBody: { mediaType: "multipart/form-data", schema: TranscriptionFields, binaryFields: ["file"] },
          responses: {
            200: { description: "The text, as JSON (the default) or plain text, as `response_format` asks.", content: { "application/json": Transcription, "text/plain": "text" } },
          },
        },
      },
    }),
    handler: async (request, reply) => {
      if (!request.isMultipart()) {
        throw new GatewayError("invalid_json", "Send the audio as multipart/form-data with a `file` part and a `model` field.", { param: "Content-Type" });
      }
      const fields: Record<string, string> = {};
      let audio: Buffer | undefined;
      let fileName = "audio";
      let fileType = "application/octet-stream";
      for await (const part of request.parts()) {
        if (part.type === "file") {
          if (part.fieldname !== "file") throw new GatewayError("validation_failed", `Invalid fields: ${part.fieldname}: only one file part, named "file", is read.`, { param: part.fieldname });
          audio = await part.toBuffer();
          fileName = part.filename || fileName;
          fileType = part.mimetype || fileType;
        } else if (typeof part.value === "string") {
          fields[part.fieldname] = part.value;
        }
      }
      if (!audio) throw new GatewayError("validation_failed", "Invalid fields: file: the audio file is required.", { param: "file" });
      const forwarded = typeof fields.model === "string" && ctx.models.forwards(fields.model);
      // A built-in model takes the fields it knows, checked before anything is metered; a forwarded one, any.
      const builtIn = forwarded ? undefined : parseBody(TranscriptionFields, fields);
      const { model: modelId } = builtIn ?? parseBody(ForwardedTranscriptionFields, fields);
      const call = new MeteredCall(ctx, reply, apiKeyOf(request), modelId, `[audio: ${audio.length} bytes]`);
      const model = await call.admit("transcription");
      if (model.forwarded) {
        const bound = transcriptionSecondsBound(audio);
        return relayMedia(
          call,
          model.forwarded,
          {
            path: "/audio/transcriptions",
            body: { form: { fields, file: { name: fileName, type: fileType, bytes: audio } } },
            reserveMicros: costOf(model.pricing, { inputTokens: bound, outputTokens: 0 }),
            cost: (answer) => costOf(model.pricing, { inputTokens: Math.min(bound, reportedSeconds(answer) ?? bound), outputTokens: 0 }),
            logged: (answer) => (answer.contentType.startsWith("text/") ? answer.bytes.toString("utf8") : ((answerJson(answer)?.text as string | undefined) ?? null)),
          },
          reply,
        );
      }
      const { language, response_format: format } = builtIn ?? parseBody(TranscriptionFields, fields);
      const engine = model.engine;
      const bound = { inputTokens: Math.ceil(engine.durationSeconds(audio)), outputTokens: model.maxOutputTokens };
      const { result, costMicros } = await call.run(model, bound, async () => {
        const heard = await engine.transcribe(audio, language);
        return { result: heard, usage: heard.usage, output: heard.text };
      });
      reply.header(COST_HEADER, formatUnits(costMicros));
      if (format === "text") return reply.type("text/plain; charset=utf-8").send(result.text);
      const { inputTokens, outputTokens } = result.usage;
      const answer: Transcription = {
        text: result.text,
        usage: { type: "tokens", input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      };
      return reply.type("application/json; charset=utf-8").send(answer);
    },
  });
};
