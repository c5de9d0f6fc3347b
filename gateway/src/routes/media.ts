import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ROUTES, Transcription, TranscriptionFields, type EmbeddingsResponse, type ImagesResponse, type ModerationResponse } from "@gateway-keys/contract";
import { readUpload } from "../http/multipart-upload";
import { EMBEDDINGS } from "../inference/wires/embeddings/wire";
import { IMAGE_GENERATIONS } from "../inference/wires/images/wire";
import { MODERATIONS } from "../inference/wires/moderations/wire";
import { SPEECH } from "../inference/wires/speech/wire";
import { TRANSCRIPTIONS } from "../inference/wires/transcription/wire";
import { runMediaCall } from "../pipeline/media-call";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** JSON bodies of the media families: larger than account bodies, for long inputs and image prompts. */
const MEDIA_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** Uploads for transcription: OpenAI's own limit. */
const AUDIO_UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

/**
 * The media families — embeddings, moderations, images, speech and transcription — each on its
 * wire (inference/wires/<family>/wire.ts) over one pipeline (pipeline/media-call.ts).
 */
export const mediaRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.embeddings, { bodyLimit: MEDIA_BODY_LIMIT_BYTES }),
    handler: (request, reply) => runMediaCall(ctx, request, reply, EMBEDDINGS, request.body) as Promise<EmbeddingsResponse>,
  });
  app.route({
    ...routeOf(ctx, ROUTES.moderations, { bodyLimit: MEDIA_BODY_LIMIT_BYTES }),
    handler: (request, reply) => runMediaCall(ctx, request, reply, MODERATIONS, request.body) as Promise<ModerationResponse>,
  });
  app.route({
    ...routeOf(ctx, ROUTES.imageGenerations, { bodyLimit: MEDIA_BODY_LIMIT_BYTES }),
    handler: (request, reply) => runMediaCall(ctx, request, reply, IMAGE_GENERATIONS, request.body) as Promise<ImagesResponse>,
  });
  const speechDoc = {
    responses: { 200: { description: "The audio: WAV (the default) or raw 16-bit PCM, as `response_format` asks.", content: { "audio/wav": "binary", "audio/pcm": "binary" } } },
  } as const;
  app.route({
    ...routeOf(ctx, ROUTES.speech, { config: { openapi: speechDoc } }),
    handler: (request, reply) => runMediaCall(ctx, request, reply, SPEECH, request.body),
  });

  // Multipart bodies are read on this route alone: elsewhere they stay a 400 naming Content-Type.
  await app.register(async (uploads) => {
    await uploads.register(multipart, { limits: { fileSize: AUDIO_UPLOAD_LIMIT_BYTES, files: 1, fields: 16 } });
    uploads.route({
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
      handler: async (request, reply) => runMediaCall(ctx, request, reply, TRANSCRIPTIONS, await readUpload(request, "audio")),
    });
  });
};
