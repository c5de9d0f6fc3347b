import { z } from "zod";
import { ModelName, TranscriptionFields, type Transcription } from "@gateway-keys/contract";
import { parseBody } from "../../../http/validation";
import { costOf } from "../../../metering/pricing";
import { answerJson, type MediaAnswer, type MediaWire } from "../../media-wire";
import { wavDurationSeconds } from "../../wav";

/** A transcription request as uploaded: its text fields and its one file. */
export interface TranscriptionUpload {
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer };
}

/** The fields of a transcription for a forwarded model: its model; the rest passes to the provider as sent. */
const ForwardedTranscriptionFields = z.looseObject({ model: ModelName });

/**
 * The most seconds a forwarded transcription can be charged, known before it runs: a WAV's own
 * length, else its size at 6 kbit/s (750 bytes a second), below the bitrate of any speech codec
 * providers take, so the bound holds for any audio (docs/operators/upstream.md#upstream-providers).
 */
function transcriptionSecondsBound(audio: Buffer): number {
  const seconds = wavDurationSeconds(audio);
  return Math.max(1, Math.ceil(seconds ?? audio.length / 750));
}

/** The seconds of audio a provider says it transcribed: `usage.seconds` (`type: "duration"`), or a verbose answer's `duration`. */
function reportedSeconds(answer: MediaAnswer): number | undefined {
  const json = answerJson(answer);
  const usage = json?.usage as { type?: string; seconds?: number } | undefined;
  const seconds = usage?.type === "duration" ? usage.seconds : (json?.duration as number | undefined);
  return typeof seconds === "number" && Number.isFinite(seconds) ? Math.ceil(seconds) : undefined;
}

type Parsed = TranscriptionFields & { audio: Buffer };

/** `POST /v1/audio/transcriptions`: the text of an uploaded audio file, as JSON or plain text. */
export const TRANSCRIPTIONS: MediaWire<"transcription", TranscriptionUpload, Parsed, { text: string; usage: { inputTokens: number; outputTokens: number } }> = {
  family: "transcription",
  requestedModel: (upload) => upload.fields.model,
  read(upload, forwarded) {
    const logged = `[audio: ${upload.file.bytes.length} bytes]`;
    // A built-in model takes the fields it knows, checked before anything is metered; a forwarded one, any.
    if (forwarded) return { modelId: parseBody(ForwardedTranscriptionFields, upload.fields).model, logged };
    const fields = parseBody(TranscriptionFields, upload.fields);
    return { modelId: fields.model, logged, parsed: { ...fields, audio: upload.file.bytes } };
  },
  forward(upload, model) {
    const bound = transcriptionSecondsBound(upload.file.bytes);
    return {
      path: "/audio/transcriptions",
      body: { form: upload },
      reserveMicros: costOf(model.pricing, { inputTokens: bound, outputTokens: 0 }),
      // The provider's seconds in full; under a spend limit the charge stops at the reservation (pipeline/metered-call.ts).
      cost: (answer) => costOf(model.pricing, { inputTokens: reportedSeconds(answer) ?? bound, outputTokens: 0 }),
      logged: (answer) => (answer.contentType.startsWith("text/") ? answer.bytes.toString("utf8") : ((answerJson(answer)?.text as string | undefined) ?? null)),
    };
  },
  bound: (parsed, model) => ({ inputTokens: Math.ceil(model.engine.durationSeconds(parsed.audio)), outputTokens: model.maxOutputTokens }),
  async run(parsed, model) {
    const heard = await model.engine.transcribe(parsed.audio, parsed.language);
    return { result: heard, usage: heard.usage, output: heard.text };
  },
  answer(heard, parsed) {
    if (parsed.response_format === "text") return { bytes: Buffer.from(heard.text, "utf8"), contentType: "text/plain; charset=utf-8" };
    const { inputTokens, outputTokens } = heard.usage;
    const answer: Transcription = {
      text: heard.text,
      usage: { type: "tokens", input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
    };
    return { json: answer, contentType: "application/json; charset=utf-8" };
  },
};
