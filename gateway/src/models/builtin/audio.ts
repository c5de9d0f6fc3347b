import { createHash } from "node:crypto";
import { GatewayError } from "../../errors";
import type { SpeechEngine, TranscriptionEngine } from "../../inference/engines";
import { countTokens, tokenPieces } from "../../inference/tokens";
import { wavChunks, wavDurationSeconds } from "../../inference/wav";

/** Every built-in speech model speaks 24 kHz 16-bit mono, the rate of the OpenAI wire's raw `pcm`. */
export const SPEECH_SAMPLE_RATE = 24_000;
const SAMPLE_RATE = SPEECH_SAMPLE_RATE;
const BYTES_PER_SAMPLE = 2;
/** The built-in speech model writes what it said into the WAV's INFO comment, after this tag. */
export const SPOKEN_TEXT_TAG = "gateway-speech:";

function riffChunk(id: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, "latin1");
  head.writeUInt32LE(data.length, 4);
  // Chunks are padded to an even length.
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A mono 16-bit WAV of `pcm` at 24 kHz, with `comment` in its LIST/INFO/ICMT chunk. */
export function encodeWav(pcm: Buffer, comment: string): Buffer {
  const format = Buffer.alloc(16);
  format.writeUInt16LE(1, 0); // PCM
  format.writeUInt16LE(1, 2); // mono
  format.writeUInt32LE(SAMPLE_RATE, 4);
  format.writeUInt32LE(SAMPLE_RATE * BYTES_PER_SAMPLE, 8);
  format.writeUInt16LE(BYTES_PER_SAMPLE, 12);
  format.writeUInt16LE(8 * BYTES_PER_SAMPLE, 14);
  const info = Buffer.concat([Buffer.from("INFO", "latin1"), riffChunk("ICMT", Buffer.from(`${comment}\0`, "utf8"))]);
  const body = Buffer.concat([Buffer.from("WAVE", "latin1"), riffChunk("fmt ", format), riffChunk("LIST", info), riffChunk("data", pcm)]);
  return riffChunk("RIFF", body);
}

/**
 * A tone speaker: every token of the text becomes a short tone whose pitch the token's hash picks,
 * then a pause; `speed` scales both. Real, playable audio with the text's rhythm, and the text
 * itself carried in the file's comment so the built-in transcriber can read it back.
 */
export const toneSpeaker: SpeechEngine = {
  async synthesize(text, _voice, speed, format) {
    const samples: number[] = [];
    const toneSamples = Math.round((SAMPLE_RATE * 0.09) / speed);
    const pauseSamples = Math.round((SAMPLE_RATE * 0.03) / speed);
    for (const piece of tokenPieces(text)) {
      const frequency = 200 + (createHash("sha256").update(piece.trim()).digest().readUInt16LE(0) % 600);
      for (let i = 0; i < toneSamples; i++) {
        const envelope = Math.min(1, i / 240, (toneSamples - i) / 240);
        samples.push(Math.round(Math.sin((2 * Math.PI * frequency * i) / SAMPLE_RATE) * 8000 * envelope));
      }
      for (let i = 0; i < pauseSamples; i++) samples.push(0);
    }
    const pcm = Buffer.alloc(samples.length * BYTES_PER_SAMPLE);
    samples.forEach((sample, i) => pcm.writeInt16LE(sample, i * BYTES_PER_SAMPLE));
    const tokens = countTokens(text);
    const usage = { inputTokens: tokens, outputTokens: tokens };
    if (format === "pcm") return { audio: pcm, contentType: "audio/pcm", usage };
    return { audio: encodeWav(pcm, `${SPOKEN_TEXT_TAG}${text}`), contentType: "audio/wav", usage };
  },
};

function notWav(): GatewayError {
  return new GatewayError("validation_failed", "Invalid fields: file: the built-in transcription model reads WAV audio (RIFF/WAVE, PCM).", {
    param: "file",
  });
}

/**
 * A WAV reader standing in for speech recognition: it returns the text the built-in speaker wrote
 * into the file, and an empty text for any other WAV (it recognises no speech). Input tokens are
 * seconds of audio, rounded up; output tokens are the text's.
 */
export const wavTranscriber: TranscriptionEngine = {
  durationSeconds(audio) {
    const seconds = wavDurationSeconds(audio);
    if (seconds === undefined) throw notWav();
    return seconds;
  },
  async transcribe(audio) {
    const seconds = Math.ceil(this.durationSeconds(audio));
    const info = wavChunks(audio)?.get("LIST");
    let text = "";
    if (info && info.toString("latin1", 0, 4) === "INFO") {
      const comment = wavChunks(Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE", "latin1"), info.subarray(4)]))?.get("ICMT");
      const spoken = comment?.toString("utf8").replace(/\0+$/, "");
      if (spoken?.startsWith(SPOKEN_TEXT_TAG)) text = spoken.slice(SPOKEN_TEXT_TAG.length);
    }
    return { text, usage: { inputTokens: seconds, outputTokens: countTokens(text) } };
  },
};
