import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { COST_HEADER, describeIssues, fieldIssues, formatUnits, NoQuery, SpeechRequest, Transcription, TranscriptionFields } from "@gateway-keys/contract";
import { requireApiKey } from "../auth/hooks";
import { apiKeyOf } from "../context";
import { GatewayError } from "../errors";
import { MeteredCall } from "../inference/metered-call";
import { countTokens } from "../inference/tokens";
import type { RouteOptions } from "./account-keys";

/** Uploads for transcription: OpenAI's own limit. */
const AUDIO_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

/** `POST /v1/audio/speech` (binary audio out) and `POST /v1/audio/transcriptions` (multipart upload in). */
export const audioRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  await app.register(multipart, { limits: { fileSize: AUDIO_UPLOAD_LIMIT_BYTES, files: 1, fields: 16 } });
  const onRequest = [requireApiKey(ctx)];

  const speechDoc = {
    responses: { 200: { description: "The audio: WAV (the default) or raw 16-bit PCM, as `response_format` asks.", content: { "audio/wav": "binary", "audio/pcm": "binary" } } },
  } as const;
  app.post("/audio/speech", { onRequest, schema: { querystring: NoQuery, body: SpeechRequest }, config: { openapi: speechDoc } }, async (request, reply) => {
    const body = request.body;
    const call = new MeteredCall(ctx, apiKeyOf(request), body.model, body.input);
    const model = await call.admit("speech");
    const tokens = countTokens(body.input);
    const { result, costMicros } = await call.run(model, { inputTokens: tokens, outputTokens: tokens }, async () => {
      const spoken = await model.engine.synthesize(body.input, body.voice, body.speed ?? 1, body.response_format ?? "wav");
      return { result: spoken, usage: spoken.usage, output: null };
    });
    return reply.header(COST_HEADER, formatUnits(costMicros)).type(result.contentType).send(result.audio);
  });

  app.post(
    "/audio/transcriptions",
    {
      onRequest,
      bodyLimit: AUDIO_UPLOAD_LIMIT_BYTES,
      schema: { querystring: NoQuery },
      // Read from the multipart parts in the handler, so documented here rather than validated by Fastify.
      config: {
        openapi: {
          requestBody: { mediaType: "multipart/form-data", schema: TranscriptionFields, binaryFields: ["file"] },
          responses: {
            200: { description: "The text, as JSON (the default) or plain text, as `response_format` asks.", content: { "application/json": Transcription, "text/plain": "text" } },
          },
        },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) {
        throw new GatewayError("invalid_json", "Send the audio as multipart/form-data with a `file` part and a `model` field.", { param: "Content-Type" });
      }
      const fields: Record<string, string> = {};
      let audio: Buffer | undefined;
      for await (const part of request.parts()) {
        if (part.type === "file") {
          if (part.fieldname !== "file") throw new GatewayError("validation_failed", `Invalid fields: ${part.fieldname}: only one file part, named "file", is read.`, { param: part.fieldname });
          audio = await part.toBuffer();
        } else if (typeof part.value === "string") {
          fields[part.fieldname] = part.value;
        }
      }
      if (!audio) throw new GatewayError("validation_failed", "Invalid fields: file: the audio file is required.", { param: "file" });
      const parsed = TranscriptionFields.safeParse(fields);
      if (!parsed.success) {
        const issues = fieldIssues(parsed.error);
        throw new GatewayError("validation_failed", `Invalid fields: ${describeIssues(issues)}.`, { param: issues[0]?.path });
      }
      const { model: modelId, language, response_format: format } = parsed.data;
      const call = new MeteredCall(ctx, apiKeyOf(request), modelId, `[audio: ${audio.length} bytes]`);
      const model = await call.admit("transcription");
      const bound = { inputTokens: Math.ceil(model.engine.durationSeconds(audio)), outputTokens: model.maxOutputTokens };
      const { result, costMicros } = await call.run(model, bound, async () => {
        const heard = await model.engine.transcribe(audio, language);
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
  );
};
