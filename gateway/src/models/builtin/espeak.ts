import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { GatewayError } from "../../errors";
import type { SpeechEngine } from "../../inference/engines";
import { countTokens } from "../../inference/tokens";
import { encodeWav, SPEECH_SAMPLE_RATE, SPOKEN_TEXT_TAG } from "./audio";

/** espeak-ng's default speaking rate, words per minute: `speed` 1. */
const DEFAULT_WORDS_PER_MINUTE = 175;
/** The longest a synthesis may run before it is abandoned (the input is at most 4096 characters). */
const SYNTHESIS_TIMEOUT_MS = 30_000;

/** The OpenAI voice names, each given an espeak-ng voice and variant so that they sound apart. */
const VOICES: Record<string, string> = {
  alloy: "en-us",
  ash: "en-us+m3",
  ballad: "en-gb+m2",
  coral: "en-us+f3",
  echo: "en-gb",
  fable: "en-gb-scotland",
  nova: "en-us+f2",
  onyx: "en-us+m7",
  sage: "en-gb+f4",
  shimmer: "en-us+f4",
};

/**
 * The espeak-ng program when it is installed: `GATEWAY_ESPEAK_BIN`, else `espeak-ng` on PATH
 * (Debian: `apt-get install espeak-ng`). Without it the gateway simply does not offer the model.
 */
export function findEspeak(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.GATEWAY_ESPEAK_BIN ? [env.GATEWAY_ESPEAK_BIN] : (env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, "espeak-ng"));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The samples of espeak-ng's WAV output: it streams, so its size fields are placeholders and the data runs to the end. */
function samplesOf(wav: Buffer): { pcm: Buffer; sampleRate: number } {
  const dataAt = wav.indexOf("data", 12, "latin1");
  if (wav.toString("latin1", 0, 4) !== "RIFF" || dataAt < 0) throw new Error("espeak-ng wrote no WAV data");
  const pcm = wav.subarray(dataAt + 8);
  return { pcm: pcm.subarray(0, pcm.length - (pcm.length % 2)), sampleRate: wav.readUInt32LE(24) };
}

/** 16-bit mono samples at `from` Hz, linearly resampled to `to` Hz. */
function resample(pcm: Buffer, from: number, to: number): Buffer {
  if (from === to) return pcm;
  const count = pcm.length / 2;
  const outCount = Math.floor((count * to) / from);
  const out = Buffer.alloc(outCount * 2);
  for (let i = 0; i < outCount; i++) {
    const at = (i * from) / to;
    const left = Math.floor(at);
    const right = Math.min(left + 1, count - 1);
    const mix = at - left;
    out.writeInt16LE(Math.round(pcm.readInt16LE(left * 2) * (1 - mix) + pcm.readInt16LE(right * 2) * mix), i * 2);
  }
  return out;
}

/** Runs espeak-ng once with the text on stdin (never on the command line); resolves with its WAV output. */
function runEspeak(binary: string, text: string, voice: string, speed: number): Promise<Buffer> {
  const wordsPerMinute = Math.min(450, Math.max(80, Math.round(DEFAULT_WORDS_PER_MINUTE * speed)));
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["--stdout", "--stdin", "-b", "1", "-v", VOICES[voice] ?? "en-us", "-s", String(wordsPerMinute)], {
      stdio: ["pipe", "pipe", "ignore"],
      timeout: SYNTHESIS_TIMEOUT_MS,
    });
    const parts: Buffer[] = [];
    child.stdout.on("data", (part: Buffer) => parts.push(part));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(Buffer.concat(parts));
      else reject(new Error(`espeak-ng ended with ${signal ?? `code ${code}`}`));
    });
    child.stdin.end(text, "utf8");
  });
}

/**
 * Speech from espeak-ng, a real (formant) synthesiser, as `espeak-speech-1`: English voices for
 * the OpenAI voice names, `speed` as its speaking rate, 24 kHz 16-bit mono like every speech model
 * here. Tokens are counted as for the tone speaker, so both cost the same for the same text.
 */
export function espeakSpeaker(binary: string): SpeechEngine {
  return {
    async synthesize(text, voice, speed, format) {
      let wav: Buffer;
      try {
        wav = await runEspeak(binary, text, voice, speed);
      } catch {
        throw new GatewayError("internal_error", "The local speech engine (espeak-ng) failed; nothing was charged.");
      }
      const { pcm, sampleRate } = samplesOf(wav);
      const samples = resample(pcm, sampleRate, SPEECH_SAMPLE_RATE);
      const tokens = countTokens(text);
      const usage = { inputTokens: tokens, outputTokens: tokens };
      if (format === "pcm") return { audio: samples, contentType: "audio/pcm", usage };
      return { audio: encodeWav(samples, `${SPOKEN_TEXT_TAG}${text}`), contentType: "audio/wav", usage };
    },
  };
}
