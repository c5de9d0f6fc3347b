/**
 * `espeak-speech-1`: real synthesised speech from espeak-ng, offered where it is installed (CI
 * installs it; .ci/run). Driven through the official `openai` package over HTTP.
 */
import { toFile } from "openai";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { describeWith, missing } from "../support/needs";
import { useGateway } from "./helpers";
import { openaiFor, readWav } from "./model-api-media-support";

const installed = missing("espeak-ng") === undefined;

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

async function speak(input: string, options: { voice?: string; speed?: number; response_format?: "wav" | "pcm" } = {}) {
  const { client } = openaiFor(gateway, (await gateway.createRegularKey()).secret);
  const response = await client.audio.speech.create({ model: "espeak-speech-1", voice: options.voice ?? "alloy", input, ...options });
  return { client, contentType: response.headers.get("content-type"), audio: Buffer.from(await response.arrayBuffer()) };
}

/** Root-mean-square amplitude of 16-bit samples. */
function rms(pcm: Buffer): number {
  let sum = 0;
  for (let at = 0; at + 1 < pcm.length; at += 2) sum += pcm.readInt16LE(at) ** 2;
  return Math.sqrt(sum / (pcm.length / 2));
}

const SENTENCE = "The gateway speaks with a real voice now.";

test("espeak-speech-1 is listed exactly when espeak-ng is installed", async () => {
  const { client } = openaiFor(gateway, (await gateway.createRegularKey()).secret);
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  expect(ids.includes("espeak-speech-1")).toBe(installed);
});

describeWith("espeak-ng")("POST /v1/audio/speech (espeak-speech-1)", () => {
  test("a sentence is a 24 kHz mono 16-bit WAV of audible speech, one to five seconds long", async () => {
    const { contentType, audio } = await speak(SENTENCE);
    expect(contentType).toBe("audio/wav");
    const wav = readWav(audio);
    expect(wav).toMatchObject({ riffSizeMatchesFile: true, audioFormat: 1, channels: 1, sampleRate: 24_000, bitsPerSample: 16 });
    const seconds = wav.data.length / wav.byteRate;
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(5);
    expect(rms(wav.data)).toBeGreaterThan(500);
  });

  test("a faster speed says the same sentence in less time, and voices sound different", async () => {
    const normal = readWav((await speak(SENTENCE)).audio).data;
    const fast = readWav((await speak(SENTENCE, { speed: 2 })).audio).data;
    const other = readWav((await speak(SENTENCE, { voice: "fable" })).audio).data;
    expect(fast.length).toBeLessThan(normal.length * 0.75);
    expect(other.equals(normal)).toBe(false);
  });

  test("pcm is the WAV's samples without a header", async () => {
    const wav = readWav((await speak(SENTENCE)).audio).data;
    const { contentType, audio } = await speak(SENTENCE, { response_format: "pcm" });
    expect(contentType).toBe("audio/pcm");
    expect(audio.equals(wav)).toBe(true);
  });

  test("the built-in transcriber reads back what espeak-speech-1 said", async () => {
    const { client, audio } = await speak(SENTENCE);
    const transcription = await client.audio.transcriptions.create({ model: "wav-transcribe-1", file: await toFile(audio, "speech.wav") });
    expect(transcription.text).toBe(SENTENCE);
  });
});
