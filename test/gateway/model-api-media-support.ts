/**
 * Helpers of the media-family tests (embeddings, moderations, images, audio): an `openai` client
 * pointed at a test gateway that records what it sent, readers that check PNG and WAV files byte
 * by byte, and account look-ups for what a key was charged.
 */
import { crc32, inflateSync } from "node:zlib";
import OpenAI, { APIError, toFile } from "openai";
import { COST_HEADER, ERROR_CODES, type ErrorCode } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient } from "./helpers";

/** One request the client sent: the method, the path under the gateway, and the JSON body when it was JSON. */
export interface SentRequest {
  method: string;
  path: string;
  json: unknown;
}

/**
 * The official client against `gateway` with `secret`, no retries (a retry would hide a failure
 * and could double a charge), and a record of every request it put on the wire.
 */
export function openaiFor(gateway: TestGateway, secret: string): { client: OpenAI; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    let json: unknown;
    if (typeof init?.body === "string") {
      try {
        json = JSON.parse(init.body);
      } catch {
        json = undefined;
      }
    }
    sent.push({ method: init?.method ?? "GET", path: url.pathname, json });
    return fetch(input, init);
  };
  const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0, fetch: recordingFetch });
  return { client, sent };
}

/** The charge the gateway put in the cost header of an answer. */
export function costOf(response: Response): string | null {
  return response.headers.get(COST_HEADER);
}

/**
 * Awaits a call that must fail, and asserts the status, the stable code, its type and (when
 * given) the field blamed, as the SDK surfaces them. Returns the SDK's error.
 */
export async function expectRefusal(pending: Promise<unknown>, status: number, code: ErrorCode, param?: string): Promise<APIError> {
  const error = await pending.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(APIError);
  const refusal = error as APIError;
  expect({ status: refusal.status, code: refusal.code, type: refusal.type }).toEqual({ status, code, type: ERROR_CODES[code] });
  if (param !== undefined) expect(refusal.param).toBe(param);
  return refusal;
}

/** What the account API says a key was charged: its `spentUnits`, and its line of the usage summary (undefined when it has none). */
export async function chargesOf(gateway: TestGateway, keyId: string, provisioningKey = gateway.provisioningKey) {
  const account = accountClient(gateway, provisioningKey);
  const key = await account.get(keyId);
  const usage = await account.usage();
  if (key.status !== 200 || usage.status !== 200) throw new Error(`account look-up failed: ${key.status} ${usage.status}`);
  const line = (usage.body.byKey as { keyId: string; requests: number; spentUnits: string }[]).find((entry) => entry.keyId === keyId);
  return { spentUnits: key.body.spentUnits, usage: line && { keyId: line.keyId, requests: line.requests, spentUnits: line.spentUnits } };
}

/** The log rows of one key, newest first. */
export async function logsOf(gateway: TestGateway, keyId: string) {
  const logs = await accountClient(gateway).logs(`?keyId=${keyId}&limit=100`);
  if (logs.status !== 200) throw new Error(`logs failed: ${logs.status} ${logs.text}`);
  return logs.body.data as { model: string; status: number; costUnits: string; request: { input: string } | null; response: { text: string } | null }[];
}

/** What a PNG's header says, once every chunk's CRC and the pixel data have been checked. */
export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Reads a PNG the way a decoder must: the signature, chunks with valid CRCs starting with IHDR
 * and ending with IEND, and IDAT data that inflates to exactly one filter byte plus the pixels
 * of each row (8-bit RGB only, which is what the built-in model writes). Throws on anything else.
 */
export function readPng(png: Buffer): PngInfo {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error("not a PNG signature");
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    if (png.readUInt32BE(at + 8 + length) !== crc32(typeAndData)) throw new Error(`bad CRC in chunk at ${at}`);
    chunks.push({ type: typeAndData.toString("latin1", 0, 4), data: typeAndData.subarray(4) });
    at += 12 + length;
  }
  const header = chunks[0];
  if (header?.type !== "IHDR" || header.data.length !== 13) throw new Error("the first chunk is not a 13-byte IHDR");
  if (chunks.at(-1)?.type !== "IEND") throw new Error("the last chunk is not IEND");
  const info = { width: header.data.readUInt32BE(0), height: header.data.readUInt32BE(4), bitDepth: header.data[8]!, colourType: header.data[9]! };
  if (info.bitDepth !== 8 || info.colourType !== 2) throw new Error(`expected 8-bit RGB, got depth ${info.bitDepth} colour type ${info.colourType}`);
  const pixels = inflateSync(Buffer.concat(chunks.filter((chunk) => chunk.type === "IDAT").map((chunk) => chunk.data)));
  const rowBytes = 1 + info.width * 3;
  if (pixels.length !== rowBytes * info.height) throw new Error(`IDAT inflates to ${pixels.length} bytes, expected ${rowBytes * info.height}`);
  for (let row = 0; row < info.height; row++) {
    if (pixels[row * rowBytes]! > 4) throw new Error(`row ${row} has an unknown filter type`);
  }
  return info;
}

/** What a RIFF/WAVE file holds: its format, its sample bytes, and its INFO comment if any. */
export interface WavInfo {
  riffSizeMatchesFile: boolean;
  audioFormat: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  data: Buffer;
  comment: string | undefined;
}

function riffChunks(bytes: Buffer, from: number): Map<string, Buffer> {
  const chunks = new Map<string, Buffer>();
  for (let at = from; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(at + 4);
    if (at + 8 + size > bytes.length) throw new Error(`chunk at ${at} runs past the end`);
    chunks.set(bytes.toString("latin1", at, at + 4), bytes.subarray(at + 8, at + 8 + size));
    at += 8 + size + (size % 2);
  }
  return chunks;
}

/** Reads a WAV file; throws when it is not RIFF/WAVE with a `fmt ` and a `data` chunk. */
export function readWav(wav: Buffer): WavInfo {
  if (wav.toString("latin1", 0, 4) !== "RIFF" || wav.toString("latin1", 8, 12) !== "WAVE") throw new Error("not a RIFF/WAVE file");
  const chunks = riffChunks(wav, 12);
  const format = chunks.get("fmt ");
  const data = chunks.get("data");
  if (!format || format.length < 16 || !data) throw new Error("no fmt or data chunk");
  const list = chunks.get("LIST");
  const info = list && list.toString("latin1", 0, 4) === "INFO" ? riffChunks(list, 4) : undefined;
  return {
    riffSizeMatchesFile: wav.readUInt32LE(4) === wav.length - 8,
    audioFormat: format.readUInt16LE(0),
    channels: format.readUInt16LE(2),
    sampleRate: format.readUInt32LE(4),
    byteRate: format.readUInt32LE(8),
    blockAlign: format.readUInt16LE(12),
    bitsPerSample: format.readUInt16LE(14),
    data,
    comment: info?.get("ICMT")?.toString("utf8").replace(/\0+$/, ""),
  };
}

/** A plain mono 16-bit PCM WAV of `seconds` of silence at `sampleRate`, with no INFO chunk: audio the built-in speaker did not make. */
export function silentWav(seconds: number, sampleRate: number): Buffer {
  const data = Buffer.alloc(Math.round(seconds * sampleRate) * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** The dot product: the cosine similarity of two unit vectors. */
export function dot(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`vectors of ${a.length} and ${b.length} dimensions`);
  return a.reduce((sum, value, i) => sum + value * b[i]!, 0);
}

/** The five media families, by the built-in model that serves each. */
export const MEDIA_MODELS = {
  embeddings: "hash-embed-1",
  moderation: "rules-moderation-1",
  images: "pattern-image-1",
  speech: "tone-speech-1",
  transcription: "wav-transcribe-1",
} as const;
export type MediaFamily = keyof typeof MEDIA_MODELS;

/** The text every standard speech request says, and the transcription request hears: tokens "Hello", ",", "world", "!". */
export const SPOKEN = "Hello, world!";

/**
 * One standard request of `family` (to `model`, default the family's built-in model), as the
 * tests of charges, policies and logs send it; `wav` is the audio a transcription uploads.
 * Resolves to the HTTP response, whose cost header tells the charge.
 *
 * Charges by hand, from the token rule (a run of letters or digits, or one other visible
 * character) and the prices per million tokens (input / output):
 * - embeddings ["alpha beta", "gamma!"]: 4 tokens × 100 = 0.0004
 * - moderation "what a loser": free (0 / 0)
 * - images "a red square", 2 × 256x256: 3 × 1000 + 2 × 64 × 100 = 0.0158
 * - speech "Hello, world!": 4 × 1000 + 4 × 1000 = 0.008
 * - transcription of the speech of "Hello, world!" (0.48 s): 1 × 1000 + 4 × 1000 = 0.005
 */
export async function sendStandard(openai: OpenAI, family: MediaFamily, wav: Buffer, model: string = MEDIA_MODELS[family]): Promise<Response> {
  switch (family) {
    case "embeddings":
      return (await openai.embeddings.create({ model, input: ["alpha beta", "gamma!"] }).withResponse()).response;
    case "moderation":
      return (await openai.moderations.create({ model, input: "what a loser" }).withResponse()).response;
    case "images":
      return (await openai.images.generate({ model, prompt: "a red square", size: "256x256", n: 2 }).withResponse()).response;
    case "speech":
      return (await openai.audio.speech.create({ model, voice: "alloy", input: SPOKEN }).withResponse()).response;
    case "transcription":
      return (await openai.audio.transcriptions.create({ model, file: await toFile(wav, "speech.wav", { type: "audio/wav" }) }).withResponse()).response;
  }
}

/** The WAV tone-speech-1 makes of {@link SPOKEN}, made with a key of its own so no test key pays for it. */
export async function spokenWav(gateway: TestGateway): Promise<Buffer> {
  const key = await gateway.createRegularKey({ name: "makes test audio" });
  const speech = await openaiFor(gateway, key.secret).client.audio.speech.create({ model: "tone-speech-1", voice: "alloy", input: SPOKEN });
  return Buffer.from(await speech.arrayBuffer());
}
