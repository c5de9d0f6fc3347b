import { z } from "zod";
import { ModelName } from "./text";

/** `POST /v1/audio/speech` (OpenAI wire), the envelope: text in, audio bytes out. */
export const SpeechRequest = z.looseObject({
  model: ModelName,
  input: z.string({ error: "expected a string" }).min(1, { error: "must not be empty" }).max(4096, { error: "must be at most 4096 characters" }),
});
export type SpeechRequest = z.infer<typeof SpeechRequest>;

/** What the built-in speech models take. */
export const BuiltInSpeechRequest = z.object({
  model: ModelName,
  input: z.string({ error: "expected a string" }).min(1, { error: "must not be empty" }).max(4096, { error: "must be at most 4096 characters" }),
  voice: z.string({ error: "expected a voice name" }).min(1).max(64),
  response_format: z.enum(["wav", "pcm"], { error: 'expected "wav" or "pcm" (the formats the gateway produces)' }).optional(),
  speed: z.number({ error: "expected a number" }).min(0.25, { error: "must be between 0.25 and 4" }).max(4, { error: "must be between 0.25 and 4" }).optional(),
});
export type BuiltInSpeechRequest = z.infer<typeof BuiltInSpeechRequest>;

/** The text fields of a `POST /v1/audio/transcriptions` multipart form (the audio is its `file` part). */
export const TranscriptionFields = z.object({
  model: ModelName,
  language: z.string().max(16).optional(),
  prompt: z.string().max(4096).optional(),
  response_format: z.enum(["json", "text"], { error: 'expected "json" or "text"' }).optional(),
});
export type TranscriptionFields = z.infer<typeof TranscriptionFields>;

export const Transcription = z.object({
  text: z.string(),
  usage: z.object({ type: z.literal("tokens"), input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }),
});
export type Transcription = z.infer<typeof Transcription>;
