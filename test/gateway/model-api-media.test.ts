/**
 * Embeddings, moderations and image generation on the built-in models, driven through the
 * official `openai` package against a real gateway over HTTP. What each answer holds; charges,
 * policies and logs of these families are in model-api-media-metering.test.ts, audio in
 * model-api-media-audio.test.ts.
 */
import { MODERATION_CATEGORIES } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { useGateway } from "./helpers";
import { dot, expectRefusal, openaiFor, readPng } from "./model-api-media-support";

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

async function client() {
  const key = await gateway.createRegularKey();
  return openaiFor(gateway, key.secret);
}

describe("POST /v1/embeddings (hash-embed-1)", () => {
  test("the SDK's default asks for base64 on the wire and decodes it to exactly the numbers of the float form", async () => {
    const { client: openai, sent } = await client();
    const decoded = await openai.embeddings.create({ model: "hash-embed-1", input: "the gateway embeds text" });
    const floats = await openai.embeddings.create({ model: "hash-embed-1", input: "the gateway embeds text", encoding_format: "float" });
    expect(sent.map((request) => (request.json as { encoding_format: string }).encoding_format)).toEqual(["base64", "float"]);
    expect(decoded.data[0]!.embedding).toHaveLength(256);
    expect(decoded.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
  });

  test("an explicit base64 embedding is the float form as little-endian float32 bytes", async () => {
    const { client: openai } = await client();
    const asked = await openai.embeddings.create({ model: "hash-embed-1", input: "little endian floats", encoding_format: "base64" });
    const floats = await openai.embeddings.create({ model: "hash-embed-1", input: "little endian floats", encoding_format: "float" });
    const bytes = Buffer.from(asked.data[0]!.embedding as unknown as string, "base64");
    expect(bytes.length).toBe(256 * 4);
    const fromBytes = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(fromBytes).toEqual(floats.data[0]!.embedding);
  });

  test("every vector has unit length", async () => {
    const { client: openai } = await client();
    const answer = await openai.embeddings.create({ model: "hash-embed-1", input: ["one short text", "Another, somewhat longer text: with punctuation!"] });
    for (const { embedding } of answer.data) expect(Math.sqrt(dot(embedding, embedding))).toBeCloseTo(1, 5);
  });

  test("texts sharing words are closer to each other than to an unrelated text", async () => {
    const { client: openai } = await client();
    const answer = await openai.embeddings.create({
      model: "hash-embed-1",
      input: ["the cat sat on the mat", "the cat sat on the rug", "quarterly tax filing deadline"],
    });
    const [cat, sameWords, unrelated] = answer.data.map((item) => item.embedding) as [number[], number[], number[]];
    expect(dot(cat, sameWords)).toBeGreaterThan(0.5);
    expect(dot(cat, sameWords)).toBeGreaterThan(dot(cat, unrelated) + 0.5);
  });

  test("the same text always embeds to the same vector, whatever its letter case", async () => {
    const { client: openai } = await client();
    const first = await openai.embeddings.create({ model: "hash-embed-1", input: "Deterministic Vectors" });
    const again = await openai.embeddings.create({ model: "hash-embed-1", input: ["deterministic vectors", "DETERMINISTIC VECTORS"] });
    expect(again.data[0]!.embedding).toEqual(first.data[0]!.embedding);
    expect(again.data[1]!.embedding).toEqual(first.data[0]!.embedding);
  });

  test("dimensions asks for shorter vectors, still of unit length, in both encodings", async () => {
    const { client: openai } = await client();
    const decoded = await openai.embeddings.create({ model: "hash-embed-1", input: "fewer dimensions please", dimensions: 64 });
    const floats = await openai.embeddings.create({ model: "hash-embed-1", input: "fewer dimensions please", dimensions: 64, encoding_format: "float" });
    expect(decoded.data[0]!.embedding).toHaveLength(64);
    expect(decoded.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    expect(Math.sqrt(dot(floats.data[0]!.embedding, floats.data[0]!.embedding))).toBeCloseTo(1, 5);
  });

  test("more dimensions than the model's vectors have is refused naming dimensions, not silently cut", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.embeddings.create({ model: "hash-embed-1", input: "too long", dimensions: 257 }), 400, "validation_failed", "dimensions");
    const full = await openai.embeddings.create({ model: "hash-embed-1", input: "just right", dimensions: 256, encoding_format: "float" });
    expect(full.data[0]!.embedding).toHaveLength(256);
  });

  test("several inputs give one vector each, in order, and prompt_tokens sums their tokens", async () => {
    const { client: openai } = await client();
    const both = await openai.embeddings.create({ model: "hash-embed-1", input: ["alpha beta", "gamma!"] });
    const second = await openai.embeddings.create({ model: "hash-embed-1", input: "gamma!" });
    expect(both.data.map((item) => [item.object, item.index])).toEqual([
      ["embedding", 0],
      ["embedding", 1],
    ]);
    expect(both.data[1]!.embedding).toEqual(second.data[0]!.embedding);
    expect(both.model).toBe("hash-embed-1");
    // "alpha", "beta", "gamma", "!": a token is a run of letters or digits, or one other visible character.
    expect(both.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
  });

  test("a body over the route's 4 MiB limit is refused 413 with a message that states that limit", async () => {
    const { client: openai } = await client();
    const refusal = await expectRefusal(openai.embeddings.create({ model: "hash-embed-1", input: "word ".repeat(1_000_000) }), 413, "payload_too_large");
    expect(refusal.message).toContain("4 MiB");
  });

  test("token-array input is refused naming the first token array", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.embeddings.create({ model: "hash-embed-1", input: [[1, 2, 3]] }), 400, "validation_failed", "input[0]");
  });
});

/** Every word or phrase of the built-in moderation model, with the one category it flags (docs/api/media.md#post-v1moderations--classify-texts). */
const MODERATION_WORDS: [category: string, phrase: string][] = [
  ["harassment", "idiot"],
  ["harassment", "loser"],
  ["harassment", "stupid"],
  ["harassment/threatening", "i will hurt you"],
  ["harassment/threatening", "you will regret"],
  ["hate", "subhuman"],
  ["hate", "vermin"],
  ["illicit", "counterfeit"],
  ["illicit", "launder money"],
  ["self-harm", "hurt myself"],
  ["self-harm", "self-harm"],
  ["sexual", "explicit sex"],
  ["violence", "kill"],
  ["violence", "murder"],
  ["violence", "stab"],
  ["violence", "shoot"],
  ["violence/graphic", "gore"],
  ["violence/graphic", "dismember"],
];

describe("POST /v1/moderations (rules-moderation-1)", () => {
  test.each(MODERATION_WORDS)("flags %s, and only it, for the words %j", async (category, phrase) => {
    const { client: openai } = await client();
    const answer = await openai.moderations.create({ model: "rules-moderation-1", input: `Someone wrote: ${phrase}, then left.` });
    const [result] = answer.results;
    expect(result!.flagged).toBe(true);
    expect(Object.entries(result!.categories).filter(([, hit]) => hit)).toEqual([[category, true]]);
    expect(Object.entries(result!.category_scores).filter(([, score]) => score !== 0)).toEqual([[category, 1]]);
  });

  test("clean text is flagged in no category, and every category is scored 0", async () => {
    const { client: openai } = await client();
    const answer = await openai.moderations.create({ model: "rules-moderation-1", input: "A quiet walk by the river on a sunny afternoon." });
    const [result] = answer.results;
    expect(result!.flagged).toBe(false);
    expect(result!.categories).toEqual(Object.fromEntries(MODERATION_CATEGORIES.map((category) => [category, false])));
    expect(result!.category_scores).toEqual(Object.fromEntries(MODERATION_CATEGORIES.map((category) => [category, 0])));
  });

  test("a listed word inside a longer word is not flagged", async () => {
    const { client: openai } = await client();
    const answer = await openai.moderations.create({
      model: "rules-moderation-1",
      input: ["Her skill is unmatched.", "Stabilize the shooting range budget.", "An idiomatic, murderously dull killjoy."],
    });
    expect(answer.results.map((result) => result.flagged)).toEqual([false, false, false]);
  });

  test("matching ignores letter case", async () => {
    const { client: openai } = await client();
    const answer = await openai.moderations.create({ model: "rules-moderation-1", input: "YOU ARE AN IDIOT" });
    expect(answer.results[0]!.categories.harassment).toBe(true);
  });

  test("image input is refused naming the first image", async () => {
    const { client: openai } = await client();
    const image = { type: "image_url" as const, image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } };
    await expectRefusal(openai.moderations.create({ model: "rules-moderation-1", input: [image] }), 400, "validation_failed", "input[0]");
  });

  test("without a model the built-in moderation model answers, one result per input in order", async () => {
    const { client: openai, sent } = await client();
    const answer = await openai.moderations.create({ input: ["I will stab the tyre", "lovely weather", "what a loser"] });
    expect(sent[0]!.json).toEqual({ input: ["I will stab the tyre", "lovely weather", "what a loser"] });
    expect(answer.model).toBe("rules-moderation-1");
    expect(answer.results.map((result) => result.flagged)).toEqual([true, false, true]);
    expect(answer.id).toMatch(/^modr/);
  });
});

describe("POST /v1/images/generations (pattern-image-1)", () => {
  test.each(["256x256", "512x512", "1024x1024"] as const)("a %s image decodes as a valid PNG of that size", async (size) => {
    const { client: openai } = await client();
    const answer = await openai.images.generate({ model: "pattern-image-1", prompt: "a lighthouse at dusk", size });
    expect(answer.data).toHaveLength(1);
    const [width, height] = size.split("x").map(Number);
    expect(readPng(Buffer.from(answer.data![0]!.b64_json!, "base64"))).toEqual({ width, height, bitDepth: 8, colourType: 2 });
  });

  test("without a size the image is 1024x1024", async () => {
    const { client: openai } = await client();
    const answer = await openai.images.generate({ model: "pattern-image-1", prompt: "default size" });
    expect(readPng(Buffer.from(answer.data![0]!.b64_json!, "base64"))).toMatchObject({ width: 1024, height: 1024 });
  });

  test("n asks for that many images, each a distinct valid PNG", async () => {
    const { client: openai } = await client();
    const answer = await openai.images.generate({ model: "pattern-image-1", prompt: "three variations", size: "256x256", n: 3 });
    const images = answer.data!.map((image) => image.b64_json!);
    expect(images).toHaveLength(3);
    expect(new Set(images).size).toBe(3);
    for (const image of images) expect(readPng(Buffer.from(image, "base64"))).toMatchObject({ width: 256, height: 256 });
  });

  test("the same prompt always gives the same images, and another prompt gives other images", async () => {
    const { client: openai } = await client();
    const ask = (prompt: string) => openai.images.generate({ model: "pattern-image-1", prompt, size: "256x256", n: 2 });
    const first = (await ask("a red square")).data!.map((image) => image.b64_json);
    const again = (await ask("a red square")).data!.map((image) => image.b64_json);
    const other = (await ask("a blue circle")).data!.map((image) => image.b64_json);
    expect(again).toEqual(first);
    expect(other[0]).not.toBe(first[0]);
    expect(other[1]).not.toBe(first[1]);
  });

  test("a prompt of the contract's 32 000 characters is served whatever its script", async () => {
    const { client: openai } = await client();
    // 32 000 three-byte characters: about 96 KB of JSON.
    const answer = await openai.images.generate({ model: "pattern-image-1", prompt: "世".repeat(32_000), size: "256x256" });
    expect(answer.data).toHaveLength(1);
  });

  test("a size the model does not generate is refused naming size", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.images.generate({ model: "pattern-image-1", prompt: "wide", size: "1792x1024" }), 400, "validation_failed", "size");
  });

  test("more than four images is refused naming n", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.images.generate({ model: "pattern-image-1", prompt: "many", n: 5 }), 400, "validation_failed", "n");
  });

  test("images are drawn off the event loop: other requests are answered while four 1024x1024 images are drawn", async () => {
    const { client: openai } = await client();
    const finished: string[] = [];
    const drawing = openai.images.generate({ model: "pattern-image-1", prompt: "a busy afternoon", n: 4 }).then(() => finished.push("images"));
    // The image request is in (its body parsed, its drawing begun) before the others are sent.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const others = Array.from({ length: 5 }, () => openai.models.list().then(() => finished.push("models")));
    await Promise.all([drawing, ...others]);
    expect(finished).toEqual(["models", "models", "models", "models", "models", "images"]);
  });

  test("image URLs are refused naming response_format: images come back only as b64_json", async () => {
    const { client: openai } = await client();
    await expectRefusal(openai.images.generate({ model: "pattern-image-1", prompt: "a link", response_format: "url" }), 400, "validation_failed", "response_format");
  });
});
