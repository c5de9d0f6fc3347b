/**
 * The key's policies on the media families (embeddings, moderations, images, speech,
 * transcription): the model policy, a model of the wrong family, what request logs keep under the
 * logging policy, and the metrics — each driven through the official `openai` package.
 */
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, useGateway } from "./helpers";
import { chargesOf, costOf, expectRefusal, logsOf, MEDIA_MODELS, openaiFor, sendStandard, SPOKEN, spokenWav, type MediaFamily } from "./model-api-media-support";

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

let wav: Buffer;
beforeAll(async () => {
  wav = await spokenWav(gateway);
});

const FAMILIES = Object.keys(MEDIA_MODELS) as MediaFamily[];

describe("model policy", () => {
  test.each(FAMILIES)("an allow-list of chat models refuses %s with 403 model_not_allowed naming model, and charges nothing", async (family) => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["echo-1", "reverse-1"] } });
    await expectRefusal(sendStandard(openaiFor(gateway, key.secret).client, family, wav), 403, "model_not_allowed", "model");
    expect(await chargesOf(gateway, key.keyId)).toEqual({ spentUnits: "0", usage: undefined });
  });

  test("an allow-list serves the media models it names", async () => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["hash-embed-1", "wav-transcribe-1"] } });
    const { client: openai } = openaiFor(gateway, key.secret);
    expect((await sendStandard(openai, "embeddings", wav)).status).toBe(200);
    expect((await sendStandard(openai, "transcription", wav)).status).toBe(200);
  });

  test("a moderation that names no model is refused when the allow-list lacks the default model", async () => {
    const key = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["hash-embed-1"] } });
    const { client: openai } = openaiFor(gateway, key.secret);
    await expectRefusal(openai.moderations.create({ input: "no model named" }), 403, "model_not_allowed", "model");
  });
});

describe("a model of another family", () => {
  test("a chat model on /v1/embeddings is refused 400 validation_failed naming model", async () => {
    const key = await gateway.createRegularKey();
    const refusal = await expectRefusal(
      openaiFor(gateway, key.secret).client.embeddings.create({ model: "echo-1", input: "chat model" }),
      400,
      "validation_failed",
      "model",
    );
    expect(refusal.message).toContain("/v1/chat/completions");
  });

  /** Each family's endpoint, sent the model of another family. */
  const MISMATCHES: [family: MediaFamily, model: string][] = [
    ["embeddings", "rules-moderation-1"],
    ["moderation", "hash-embed-1"],
    ["images", "tone-speech-1"],
    ["speech", "wav-transcribe-1"],
    ["transcription", "tone-speech-1"],
  ];
  test.each(MISMATCHES)("the %s endpoint refuses %s with 400 validation_failed naming model, and charges nothing", async (family, model) => {
    const key = await gateway.createRegularKey();
    await expectRefusal(sendStandard(openaiFor(gateway, key.secret).client, family, wav, model), 400, "validation_failed", "model");
    expect(await chargesOf(gateway, key.keyId)).toEqual({ spentUnits: "0", usage: undefined });
  });

  test("an unknown model is 404 model_not_found naming model", async () => {
    const key = await gateway.createRegularKey();
    await expectRefusal(sendStandard(openaiFor(gateway, key.secret).client, "images", wav, "dall-e-3"), 404, "model_not_found", "model");
  });
});

/** Sends one standard request of every family, in order; returns their charges. */
async function sendEveryFamily(secret: string): Promise<(string | null)[]> {
  const { client: openai } = openaiFor(gateway, secret);
  const charges: (string | null)[] = [];
  for (const family of FAMILIES) charges.push(costOf(await sendStandard(openai, family, wav)));
  return charges;
}

/** What the moderation of "what a loser" flags, as its log keeps it: the categories of each input. */
function moderationLogText(): string {
  return JSON.stringify([
    {
      harassment: true,
      "harassment/threatening": false,
      hate: false,
      "hate/threatening": false,
      illicit: false,
      "illicit/violent": false,
      "self-harm": false,
      "self-harm/intent": false,
      "self-harm/instructions": false,
      sexual: false,
      "sexual/minors": false,
      violence: false,
      "violence/graphic": false,
    },
  ]);
}

describe("request logs", () => {
  test("with the default logging policy every family's row has its model, status and cost but no content", async () => {
    const key = await gateway.createRegularKey();
    const charges = await sendEveryFamily(key.secret);
    const rows = (await logsOf(gateway, key.keyId)).reverse();
    expect(rows.map(({ model, status, costUnits, request, response }) => ({ model, status, costUnits, request, response }))).toEqual(
      FAMILIES.map((family, i) => ({ model: MEDIA_MODELS[family], status: 200, costUnits: charges[i], request: null, response: null })),
    );
  });

  test("storing requests and responses keeps each family's input text and its text output", async () => {
    const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 1 } });
    await sendEveryFamily(key.secret);
    const rows = (await logsOf(gateway, key.keyId)).reverse();
    expect(rows.map(({ model, request, response }) => ({ model, request, response }))).toEqual([
      { model: "hash-embed-1", request: { input: "alpha beta\ngamma!" }, response: null },
      { model: "rules-moderation-1", request: { input: "what a loser" }, response: { text: moderationLogText() } },
      { model: "pattern-image-1", request: { input: "a red square" }, response: null },
      { model: "tone-speech-1", request: { input: SPOKEN }, response: null },
      { model: "wav-transcribe-1", request: { input: `[audio: ${wav.length} bytes]` }, response: { text: SPOKEN } },
    ]);
  });

  test("storing requests only keeps no output", async () => {
    const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: true, storeResponse: false, retentionDays: 1 } });
    await sendEveryFamily(key.secret);
    const rows = (await logsOf(gateway, key.keyId)).reverse();
    expect(rows.map((row) => row.request?.input)).toEqual(["alpha beta\ngamma!", "what a loser", "a red square", SPOKEN, `[audio: ${wav.length} bytes]`]);
    expect(rows.map((row) => row.response)).toEqual([null, null, null, null, null]);
  });

  test("storing responses only keeps no input", async () => {
    const key = await gateway.createRegularKey({ loggingPolicy: { storeRequest: false, storeResponse: true, retentionDays: 1 } });
    await sendEveryFamily(key.secret);
    const rows = (await logsOf(gateway, key.keyId)).reverse();
    expect(rows.map((row) => row.request)).toEqual([null, null, null, null, null]);
    expect(rows.map((row) => row.response?.text ?? null)).toEqual([null, moderationLogText(), null, null, SPOKEN]);
  });

  test("a refused request gets a row with its status, no charge, and its input only as the policy says", async () => {
    const key = await gateway.createRegularKey({
      spendPolicy: { limitUnits: "0.001" },
      loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 1 },
    });
    await expectRefusal(sendStandard(openaiFor(gateway, key.secret).client, "images", wav), 402, "spend_limit_reached");
    const rows = await logsOf(gateway, key.keyId);
    expect(rows.map(({ model, status, costUnits, request, response }) => ({ model, status, costUnits, request, response }))).toEqual([
      { model: "pattern-image-1", status: 402, costUnits: "0", request: { input: "a red square" }, response: null },
    ]);
  });
});

describe("metrics", () => {
  test("count media requests answered, refused by a policy, and failed", async () => {
    const provisioningKey = await gateway.newProvisioningKey("media-metrics-owner");
    const open = await gateway.createRegularKey({}, { provisioningKey });
    const limited = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.001" } }, { provisioningKey });
    const allowList = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } }, { provisioningKey });
    await sendEveryFamily(open.secret);
    await expectRefusal(sendStandard(openaiFor(gateway, limited.secret).client, "speech", wav), 402, "spend_limit_reached");
    await expectRefusal(sendStandard(openaiFor(gateway, allowList.secret).client, "embeddings", wav), 403, "model_not_allowed");
    await expectRefusal(sendStandard(openaiFor(gateway, open.secret).client, "images", wav, "hash-embed-1"), 400, "validation_failed");
    const metrics = await accountClient(gateway, provisioningKey).metrics();
    expect(metrics.body).toMatchObject({ requests: { total: 8, succeeded: 5, rejected: 2 }, spentUnits: "0.0292" });
  });
});
