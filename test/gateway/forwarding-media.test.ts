/**
 * Every family forwards: embeddings, moderation, images, speech and transcription models in the
 * config reach an OpenAI-wire provider as the client sent them (multipart included), come back as
 * the provider answered (binary audio included), and are charged in their family's unit — the
 * provider's usage where it reports one, the gateway's measure where the wire has none.
 */
import { toFile } from "openai";
import { GatewayConfig } from "@gateway-keys/gateway";
import { clientsOf, useForwarding } from "./forwarding-support";

const route = (model: string) => [{ provider: "oai", model }];
const forwarding = useForwarding([
  { id: "embed", family: "embeddings", routes: [{ provider: "oai", model: "broken" }, ...route("emb-up")], pricing: { inputUnitsPerMillionTokens: "1000000" } },
  { id: "moderate", family: "moderation", routes: route("mod-up"), pricing: { inputUnitsPerMillionTokens: "1000000" } },
  { id: "draw", family: "images", routes: route("img-up"), pricing: { unitsPerImage: { "1024x1024": "5", "1536x1024": "8" } } },
  { id: "speak", family: "speech", routes: route("tts-up"), pricing: { unitsPerMillionCharacters: "1000000" } },
  { id: "listen", family: "transcription", routes: route("stt-up"), pricing: { unitsPerMinute: "60" } },
]);

test("an embeddings request (token arrays, dimensions) passes as sent, falls back past a failing route, and is charged the provider's token count", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  const answer = { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.25, -0.5] }], model: "emb-up-v3", usage: { prompt_tokens: 5, total_tokens: 5 } };
  provider.answer((request) => ((request.body as { model: string }).model === "broken" ? { status: 503, text: "busy" } : { json: answer }));
  const body = { model: "embed", input: [[1, 2, 3], [4, 5]], dimensions: 2, encoding_format: "float" as const, user: "end-user-1" };
  const { data, response } = await client.openai.embeddings.create(body).withResponse();

  expect(provider.received.map((request) => [request.path, request.body])).toEqual([
    ["/v1/embeddings", { ...body, model: "broken" }],
    ["/v1/embeddings", { ...body, model: "emb-up" }],
  ]);
  expect(JSON.parse(JSON.stringify(data))).toEqual(answer);
  expect(response.headers.get("x-gateway-cost-units")).toBe("5");
  // The route that answered (after the failing one), by its provider and model.
  expect(response.headers.get("x-gateway-route")).toBe("oai/emb-up");
  expect(await client.spentUnits()).toBe("5");
});

test("a moderation with an image input passes as sent and is charged by the gateway's count (the wire reports no usage)", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  const answer = {
    id: "modr-up",
    model: "omni-moderation-latest",
    results: [{ flagged: false, categories: { violence: false }, category_scores: { violence: 0.01 }, category_applied_input_types: { violence: ["text", "image"] } }],
  };
  provider.answer(() => ({ json: answer }));
  const input = [{ type: "text" as const, text: "hello world" }, { type: "image_url" as const, image_url: { url: "https://example.test/a.png" } }];
  const moderation = await client.openai.moderations.create({ model: "moderate", input });

  expect(provider.received[0]!.body).toEqual({ model: "mod-up", input });
  expect(moderation.results[0]!.category_applied_input_types).toEqual({ violence: ["text", "image"] });
  // "hello world" is 2 tokens; an image counts 2000 (docs/api/models.md#model-requests-what-every-family-shares).
  expect(await client.spentUnits()).toBe("2002");
});

test("images are charged per image at the price of their size; a size with no price is refused before the provider is asked", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  const answer = { created: 1_800_000_000, data: [{ b64_json: "aW1n" }, { b64_json: "aW1n" }], usage: { input_tokens: 9, output_tokens: 100, total_tokens: 109, input_tokens_details: { text_tokens: 9, image_tokens: 0 } } };
  provider.answer(() => ({ json: answer }));
  const body = { model: "draw", prompt: "a lighthouse", n: 2, size: "1536x1024" as const, quality: "high" as const, background: "transparent" as const, output_format: "webp" as const };
  const images = await client.openai.images.generate(body);

  expect(provider.received[0]!.body).toEqual({ ...body, model: "img-up" });
  expect(images.data).toEqual(answer.data);
  expect(await client.spentUnits()).toBe("16");

  const refused = await client.openai.images.generate({ model: "draw", prompt: "x", size: "256x256" }).catch((error: unknown) => error);
  expect(refused).toMatchObject({ status: 400, code: "validation_failed", param: "size" });
  expect((refused as Error).message).toContain("priced for 1024x1024, 1536x1024");
  expect(provider.received).toHaveLength(1);
});

test("speech in any format the provider makes comes back byte for byte, charged per character", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  const mp3 = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x01, 0x02]);
  provider.answer(() => ({ handle: (_request, response) => response.writeHead(200, { "content-type": "audio/mpeg" }).end(mp3) }));
  const body = { model: "speak", input: "Hello, wörld!", voice: "alloy" as const, response_format: "mp3" as const, instructions: "Cheerful." };
  const audio = await client.openai.audio.speech.create(body);

  expect(provider.received[0]!.body).toEqual({ ...body, model: "tts-up" });
  expect(audio.headers.get("content-type")).toBe("audio/mpeg");
  expect(Buffer.from(await audio.arrayBuffer())).toEqual(mp3);
  expect(await client.spentUnits()).toBe("13");
});

test("a transcription's multipart form reaches the provider with its file and fields, charged by the seconds the provider reports", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ json: { text: "hello there", usage: { type: "duration", seconds: 3.4 } } }));
  // Not a WAV: the gateway cannot read its length, so it reserves 7500 bytes at 750 a second, 10 s.
  const audio = Buffer.alloc(7500, 7);
  const transcription = await client.openai.audio.transcriptions.create({ model: "listen", file: await toFile(audio, "speech.mp3", { type: "audio/mpeg" }), language: "en", prompt: "greetings" });

  expect(transcription.text).toBe("hello there");
  const form = provider.received[0]!.body as string;
  expect(provider.received[0]!.path).toBe("/v1/audio/transcriptions");
  expect(form).toMatch(/name="model"\r\n\r\nstt-up\r\n/);
  expect(form).toMatch(/name="language"\r\n\r\nen\r\n/);
  expect(form).toMatch(/name="prompt"\r\n\r\ngreetings\r\n/);
  expect(form).toMatch(/name="file"; filename="speech.mp3"\r\nContent-Type: audio\/mpeg\r\n\r\n/);
  expect(form).toContain(audio.toString("latin1"));
  // 3.4 s is charged as 4 seconds at 1 credit a second.
  expect(await client.spentUnits()).toBe("4");
});

test("a media model may route only to a provider whose kind forwards its family: the config names the route", () => {
  const parsed = GatewayConfig.safeParse({
    providers: { ant: { kind: "anthropic", baseUrl: "http://127.0.0.1:1", apiKeyEnv: "X" } },
    models: [{ id: "e", family: "embeddings", routes: [{ provider: "ant", model: "m" }], pricing: { inputUnitsPerMillionTokens: "1" } }],
  });
  expect(parsed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
    ["models.0.routes.0.provider", '"ant" (kind anthropic) does not forward embeddings models; it forwards chat'],
  ]);
});
