/**
 * What the media families (embeddings, moderations, images, speech, transcription) cost, and the
 * spend limit on them: every charge computed by hand from the token rule and the model's prices,
 * and seen in the cost header, the key's `spentUnits` and the usage summary alike.
 */
import OpenAI, { toFile } from "openai";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, useGateway } from "./helpers";
import { chargesOf, costOf, expectRefusal, MEDIA_MODELS, openaiFor, sendStandard, spokenWav, type MediaFamily } from "./model-api-media-support";

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

let wav: Buffer;
beforeAll(async () => {
  wav = await spokenWav(gateway);
});

/** The standard request of each family and its charge (see `sendStandard`). */
const STANDARD_CHARGES: [family: MediaFamily, charge: string][] = [
  ["embeddings", "0.0004"],
  ["moderation", "0"],
  ["images", "0.0158"],
  ["speech", "0.008"],
  ["transcription", "0.005"],
];

describe("charges", () => {
  test.each(STANDARD_CHARGES)("%s is charged %s: in the cost header, the key's spentUnits and the usage summary", async (family, charge) => {
    const key = await gateway.createRegularKey();
    const response = await sendStandard(openaiFor(gateway, key.secret).client, family, wav);
    expect(costOf(response)).toBe(charge);
    expect(await chargesOf(gateway, key.keyId)).toEqual({ spentUnits: charge, usage: { keyId: key.keyId, requests: 1, spentUnits: charge } });
  });

  test("the usage summary lists each media model with its requests and spend", async () => {
    const provisioningKey = await gateway.newProvisioningKey("media-usage-owner");
    const key = await gateway.createRegularKey({}, { provisioningKey });
    const { client: openai } = openaiFor(gateway, key.secret);
    for (const [family] of STANDARD_CHARGES) await sendStandard(openai, family, wav);
    await sendStandard(openai, "images", wav);
    const usage = await accountClient(gateway, provisioningKey).usage();
    expect(usage.body).toMatchObject({ requests: 6, spentUnits: "0.045" });
    expect(usage.body.byModel).toEqual(
      expect.arrayContaining([
        { model: "hash-embed-1", requests: 1, spentUnits: "0.0004" },
        { model: "rules-moderation-1", requests: 1, spentUnits: "0" },
        { model: "pattern-image-1", requests: 2, spentUnits: "0.0316" },
        { model: "tone-speech-1", requests: 1, spentUnits: "0.008" },
        { model: "wav-transcribe-1", requests: 1, spentUnits: "0.005" },
      ]),
    );
    expect(usage.body.byModel).toHaveLength(5);
  });

  test("an image's usage counts the prompt's tokens in and one token per 32x32 pixels out", async () => {
    const key = await gateway.createRegularKey();
    const { client: openai } = openaiFor(gateway, key.secret);
    const answer = await openai.images.generate({ model: "pattern-image-1", prompt: "a red square", size: "512x512", n: 3 });
    // 3 images × (512 × 512 / 1024) = 768 output tokens.
    expect(answer.usage).toEqual({ input_tokens: 3, input_tokens_details: { text_tokens: 3, image_tokens: 0 }, output_tokens: 768, total_tokens: 771 });
  });

  test("a 1024x1024 image counts 1024 output tokens", async () => {
    const key = await gateway.createRegularKey();
    const { data, response } = await openaiFor(gateway, key.secret).client.images.generate({ model: "pattern-image-1", prompt: "big" }).withResponse();
    expect(data.usage).toEqual({ input_tokens: 1, input_tokens_details: { text_tokens: 1, image_tokens: 0 }, output_tokens: 1024, total_tokens: 1025 });
    // 1 × 1000 + 1024 × 100 per million.
    expect(costOf(response)).toBe("0.1034");
  });

  test("an embedding of many texts is charged for the tokens of all of them", async () => {
    const key = await gateway.createRegularKey();
    const texts = Array.from({ length: 100 }, (_, i) => `text number ${i}`);
    const { data, response } = await openaiFor(gateway, key.secret).client.embeddings.create({ model: "hash-embed-1", input: texts }).withResponse();
    expect(data.usage.prompt_tokens).toBe(300);
    expect(costOf(response)).toBe("0.03");
  });

  test("a transcription answered as text carries its charge in the cost header too", async () => {
    const key = await gateway.createRegularKey();
    const { response } = await openaiFor(gateway, key.secret).client.audio.transcriptions
      .create({ model: "wav-transcribe-1", file: await toFile(wav, "speech.wav", { type: "audio/wav" }), response_format: "text" })
      .withResponse();
    expect(costOf(response)).toBe("0.005");
  });
});

/**
 * The most each standard request can cost, which is reserved before the model runs. Equal to the
 * charge except for transcription, which reserves the model's 4096 output tokens:
 * 1 × 1000 + 4096 × 1000 per million = 4.097.
 */
const RESERVATIONS: [family: MediaFamily, reserved: string, oneMicroLess: string, charge: string][] = [
  ["embeddings", "0.0004", "0.000399", "0.0004"],
  ["images", "0.0158", "0.015799", "0.0158"],
  ["speech", "0.008", "0.007999", "0.008"],
  ["transcription", "4.097", "4.096999", "0.005"],
];

describe("spend limit", () => {
  test.each(RESERVATIONS)("%s is served when the most it can cost (%s) is exactly the limit", async (family, reserved, _less, charge) => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: reserved } });
    const response = await sendStandard(openaiFor(gateway, key.secret).client, family, wav);
    expect(costOf(response)).toBe(charge);
    expect((await chargesOf(gateway, key.keyId)).spentUnits).toBe(charge);
  });

  test.each(RESERVATIONS)("%s is refused 402 when its reservation of %s is over the limit of %s, and nothing is charged", async (family, _reserved, oneMicroLess) => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: oneMicroLess } });
    await expectRefusal(sendStandard(openaiFor(gateway, key.secret).client, family, wav), 402, "spend_limit_reached");
    expect(await chargesOf(gateway, key.keyId)).toEqual({ spentUnits: "0", usage: undefined });
  });

  test("a key that has spent its whole limit is refused its next embedding", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.0008" } });
    const { client: openai } = openaiFor(gateway, key.secret);
    await sendStandard(openai, "embeddings", wav);
    await sendStandard(openai, "embeddings", wav);
    await expectRefusal(sendStandard(openai, "embeddings", wav), 402, "spend_limit_reached");
    expect(await chargesOf(gateway, key.keyId)).toEqual({ spentUnits: "0.0008", usage: { keyId: key.keyId, requests: 2, spentUnits: "0.0008" } });
  });

  test("moderation is free, so a key that has spent its whole limit may still moderate", async () => {
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.0004" } });
    const { client: openai } = openaiFor(gateway, key.secret);
    await sendStandard(openai, "embeddings", wav);
    const response = await sendStandard(openai, "moderation", wav);
    expect(costOf(response)).toBe("0");
  });

  test("concurrent image requests never spend past the limit", async () => {
    // Room for exactly three of the eight requests (0.0158 each).
    const key = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.05" } });
    const { client: openai } = openaiFor(gateway, key.secret);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => sendStandard(openai, "images", wav)));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(3);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ status: 402, code: "spend_limit_reached" });
    }
    expect((await chargesOf(gateway, key.keyId)).spentUnits).toBe("0.0474");
  });
});

describe("GET /v1/models", () => {
  test("lists each media model with its family, prices and output bound", async () => {
    const key = await gateway.createRegularKey();
    const models: OpenAI.Models.Model[] = [];
    for await (const model of openaiFor(gateway, key.secret).client.models.list()) models.push(model);
    const media = models.filter((model) => (Object.values(MEDIA_MODELS) as string[]).includes(model.id));
    expect(media.map((model) => [model.id, (model as unknown as { family: string }).family])).toEqual([
      ["hash-embed-1", "embeddings"],
      ["rules-moderation-1", "moderation"],
      ["pattern-image-1", "images"],
      ["tone-speech-1", "speech"],
      ["wav-transcribe-1", "transcription"],
    ]);
    expect(media.map((model) => (model as unknown as { pricing: unknown }).pricing)).toEqual([
      { input_units_per_million_tokens: "100", output_units_per_million_tokens: "0" },
      { input_units_per_million_tokens: "0", output_units_per_million_tokens: "0" },
      { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "100" },
      { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "1000" },
      { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "1000" },
    ]);
    expect(media.map((model) => (model as unknown as { max_output_tokens: number }).max_output_tokens)).toEqual([4096, 4096, 4096, 4096, 4096]);
  });
});
