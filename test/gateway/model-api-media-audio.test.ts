/**
 * Speech (tone-speech-1) and transcription (wav-transcribe-1) through the official `openai`
 * package against a real gateway over HTTP: the audio is read back byte by byte, and the
 * transcriber hears exactly what the speaker said.
 */
import { toFile } from "openai";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { useGateway } from "./helpers";
import { expectRefusal, openaiFor, readWav, silentWav } from "./model-api-media-support";

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

async function client() {
  const key = await gateway.createRegularKey();
  return { ...openaiFor(gateway, key.secret), secret: key.secret };
}

async function speak(openai: Awaited<ReturnType<typeof client>>["client"], input: string, options: { response_format?: "wav" | "pcm"; speed?: number } = {}) {
  const response = await openai.audio.speech.create({ model: "tone-speech-1", voice: "alloy", input, ...options });
  return { contentType: response.headers.get("content-type"), audio: Buffer.from(await response.arrayBuffer()) };
}

/** Tokens of the text: "Hello", ",", "world", "!" (a run of letters or digits, or one other visible character). */
const HELLO = "Hello, world!";
/** 90 ms of tone and 30 ms of pause per token, at 24 000 samples per second and 2 bytes per sample. */
const BYTES_PER_TOKEN_AT_SPEED_1 = ((90 + 30) * 24_000 * 2) / 1000;

describe("POST /v1/audio/speech (tone-speech-1)", () => {
  test("speech is a mono 16-bit PCM WAV at 24 kHz whose RIFF size matches the file", async () => {
    const { client: openai } = await client();
    const { contentType, audio } = await speak(openai, HELLO);
    expect(contentType).toBe("audio/wav");
    const wav = readWav(audio);
    expect(wav).toMatchObject({ riffSizeMatchesFile: true, audioFormat: 1, channels: 1, sampleRate: 24_000, byteRate: 48_000, blockAlign: 2, bitsPerSample: 16 });
    expect(wav.data.some((byte) => byte !== 0)).toBe(true);
  });

  test("the WAV carries the spoken text in its LIST/INFO/ICMT comment", async () => {
    const { client: openai } = await client();
    const { audio } = await speak(openai, "Grüße, 世界 🎉");
    expect(readWav(audio).comment).toBe("gateway-speech:Grüße, 世界 🎉");
  });

  test("each token lasts 120 ms at speed 1, and speed 2 halves the audio", async () => {
    const { client: openai } = await client();
    const normal = readWav((await speak(openai, HELLO)).audio);
    const fast = readWav((await speak(openai, HELLO, { speed: 2 })).audio);
    expect(normal.data.length).toBe(4 * BYTES_PER_TOKEN_AT_SPEED_1);
    expect(fast.data.length).toBe((4 * BYTES_PER_TOKEN_AT_SPEED_1) / 2);
  });

  test("pcm is the WAV's samples alone, as audio/pcm", async () => {
    const { client: openai } = await client();
    const wav = await speak(openai, HELLO, { response_format: "wav" });
    const pcm = await speak(openai, HELLO, { response_format: "pcm" });
    expect(pcm.contentType).toBe("audio/pcm");
    expect(pcm.audio.equals(readWav(wav.audio).data)).toBe(true);
  });

  test("the same text always gives the same audio", async () => {
    const { client: openai } = await client();
    const first = await speak(openai, "say it twice");
    const again = await speak(openai, "say it twice");
    expect(again.audio.equals(first.audio)).toBe(true);
  });

  test("a format the model does not produce is refused naming response_format", async () => {
    const { client: openai } = await client();
    await expectRefusal(
      openai.audio.speech.create({ model: "tone-speech-1", voice: "alloy", input: "in mp3", response_format: "mp3" }),
      400,
      "validation_failed",
      "response_format",
    );
  });

  test("a speed outside 0.25 to 4 is refused naming speed", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.audio.speech.create({ model: "tone-speech-1", voice: "alloy", input: "fast", speed: 5 }), 400, "validation_failed", "speed");
  });
});

describe("POST /v1/audio/transcriptions (wav-transcribe-1)", () => {
  test("speech transcribes back to exactly the text that was spoken", async () => {
    const { client: openai } = await client();
    const text = "Hello, wörld — 你好 🎉 it's 3:45pm.";
    const { audio } = await speak(openai, text);
    const heard = await openai.audio.transcriptions.create({ model: "wav-transcribe-1", file: await toFile(audio, "speech.wav", { type: "audio/wav" }) });
    expect(heard.text).toBe(text);
  });

  test("response_format text answers the bare text", async () => {
    const { client: openai } = await client();
    const { audio } = await speak(openai, HELLO);
    const heard = await openai.audio.transcriptions.create({
      model: "wav-transcribe-1",
      file: await toFile(audio, "speech.wav", { type: "audio/wav" }),
      response_format: "text",
    });
    expect(heard).toBe(HELLO);
  });

  test("usage counts the audio's seconds, rounded up, in and the text's tokens out", async () => {
    const { client: openai } = await client();
    // Ten tokens: 1.2 seconds of audio, so 2 input tokens.
    const text = "one two three four five six seven eight nine ten";
    const { audio } = await speak(openai, text);
    const heard = await openai.audio.transcriptions.create({ model: "wav-transcribe-1", file: await toFile(audio, "speech.wav", { type: "audio/wav" }) });
    expect(heard.usage).toEqual({ type: "tokens", input_tokens: 2, output_tokens: 10, total_tokens: 12 });
  });

  test("a WAV the built-in speaker did not make transcribes to empty text, billed by its seconds", async () => {
    const { client: openai } = await client();
    const heard = await openai.audio.transcriptions.create({
      model: "wav-transcribe-1",
      file: await toFile(silentWav(2.5, 16_000), "silence.wav", { type: "audio/wav" }),
    });
    expect(heard).toEqual({ text: "", usage: { type: "tokens", input_tokens: 3, output_tokens: 0, total_tokens: 3 } });
  });

  test("a file that is not a WAV is refused naming file", async () => {
    const { client: openai } = await client();
    const notWav = await toFile(Buffer.from("ID3\u0003 this is not a wave file"), "speech.mp3", { type: "audio/mpeg" });
    await expectRefusal(openai.audio.transcriptions.create({ model: "wav-transcribe-1", file: notWav }), 400, "validation_failed", "file");
  });

  test("a form without a file part is refused naming file", async () => {
    const { secret } = await client();
    const form = new FormData();
    form.append("model", "wav-transcribe-1");
    const answer = await fetch(`${gateway.baseUrl}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: form });
    const body = (await answer.json()) as { error: { code: string; param: string } };
    expect({ status: answer.status, code: body.error.code, param: body.error.param }).toEqual({ status: 400, code: "validation_failed", param: "file" });
  });

  test("a form without a model is refused naming model", async () => {
    const { secret } = await client();
    const form = new FormData();
    form.append("file", new Blob([silentWav(1, 8_000)], { type: "audio/wav" }), "silence.wav");
    const answer = await fetch(`${gateway.baseUrl}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: form });
    const body = (await answer.json()) as { error: { code: string; param: string } };
    expect({ status: answer.status, code: body.error.code, param: body.error.param }).toEqual({ status: 400, code: "validation_failed", param: "model" });
  });

  test("an upload over 25 MiB is refused 413 payload_too_large", async () => {
    const { client: openai } = await client();
    const tooLarge = await toFile(silentWav(26 * 1024 * 1024 / 48_000, 24_000), "long.wav", { type: "audio/wav" });
    await expectRefusal(openai.audio.transcriptions.create({ model: "wav-transcribe-1", file: tooLarge }), 413, "payload_too_large");
  });

  test("a second file part is refused naming file", async () => {
    const { secret } = await client();
    const form = new FormData();
    form.append("model", "wav-transcribe-1");
    form.append("file", new Blob([silentWav(1, 8_000)], { type: "audio/wav" }), "one.wav");
    form.append("file", new Blob([silentWav(1, 8_000)], { type: "audio/wav" }), "two.wav");
    const answer = await fetch(`${gateway.baseUrl}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: form });
    const body = (await answer.json()) as { error: { code: string; param: string } };
    expect({ status: answer.status, code: body.error.code, param: body.error.param }).toEqual({ status: 400, code: "validation_failed", param: "file" });
  });

  test("a JSON body is refused: the audio must come as multipart/form-data", async () => {
    const { secret } = await client();
    const answer = await fetch(`${gateway.baseUrl}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "wav-transcribe-1", file: "UklGRg==" }),
    });
    const body = (await answer.json()) as { error: { code: string; param: string } };
    expect({ status: answer.status, code: body.error.code, param: body.error.param }).toEqual({ status: 400, code: "invalid_json", param: "Content-Type" });
  });
});
