/**
 * A reservation holds the most a request can be counted, so a key with a spend limit is charged
 * what the provider counted in full — more than the gateway's own token count, as real tokenizers
 * and their per-message markers count — and still never passes its limit, however many requests
 * run at once (docs/api/policies.md#how-a-reservation-bounds-each-familys-charge).
 */
import { toFile } from "openai";
import { COST_HEADER } from "@gateway-keys/contract";
import type { Script } from "@gateway-keys/testkit/scripted-provider";
import { chatAnswer, clientsOf, useForwarding } from "./forwarding-support";

const forwarding = useForwarding([
  // Counts images as gpt-4o-mini does: 2,833 + 5,667 per 512-pixel tile.
  { id: "mini", family: "chat", routes: [{ provider: "oai", model: "mini-up" }], pricing: { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" }, maxOutputTokens: 100, inputTokensPerImage: 50_000 },
  { id: "embed", family: "embeddings", routes: [{ provider: "oai", model: "emb-up" }], pricing: { inputUnitsPerMillionTokens: "1000000" } },
  { id: "listen", family: "transcription", routes: [{ provider: "oai", model: "stt-up" }], pricing: { unitsPerMinute: "60" } },
]);

/** "hello there, how are you": 6 tokens by the gateway's rule; the provider counts 14 (its message markers too). */
const PROMPT = "hello there, how are you";
const PROVIDER_INPUT = 14;
const OUTPUT = 3;
/** 14 input tokens at 1, 3 output tokens at 2. */
const CHARGE = String(PROVIDER_INPUT + 2 * OUTPUT);

/** The provider's whole answer on the wire it was called on, reporting 14 input and 3 output tokens. */
function answerOn(path: string): Script {
  if (path === "/v1/chat/completions") return { json: chatAnswer({ role: "assistant", content: "fine" }, "length", { prompt_tokens: PROVIDER_INPUT, completion_tokens: OUTPUT, total_tokens: 17 }) };
  if (path === "/v1/responses") {
    return {
      json: {
        id: "resp_up",
        object: "response",
        created_at: 1_800_000_000,
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        model: "gpt-up",
        output: [{ type: "message", id: "msg_up", status: "incomplete", role: "assistant", content: [{ type: "output_text", text: "fine", annotations: [] }] }],
        usage: { input_tokens: PROVIDER_INPUT, input_tokens_details: { cached_tokens: 0 }, output_tokens: OUTPUT, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 17 },
      },
    };
  }
  return {
    json: {
      id: "msg_up",
      type: "message",
      role: "assistant",
      model: "claude-up",
      content: [{ type: "text", text: "fine" }],
      stop_reason: "max_tokens",
      stop_sequence: null,
      usage: { input_tokens: PROVIDER_INPUT, output_tokens: OUTPUT },
    },
  };
}

const limited = (limitUnits: string) => clientsOf(forwarding(), { spendPolicy: { limitUnits } });
type Clients = Awaited<ReturnType<typeof limited>>;

/** One request per client wire and route kind, each bounded at the 3 output tokens it uses; resolves to its cost header. */
const CALLS: [string, (client: Clients) => Promise<string | null>][] = [
  [
    "Chat Completions, relayed",
    async (client) =>
      (await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: PROMPT }], max_completion_tokens: OUTPUT }).withResponse()).response.headers.get(COST_HEADER),
  ],
  ["Responses, relayed", async (client) => (await client.openai.responses.create({ model: "gpt", input: PROMPT, max_output_tokens: OUTPUT }).withResponse()).response.headers.get(COST_HEADER)],
  [
    "Messages, relayed",
    async (client) => (await client.anthropic.messages.create({ model: "claude", messages: [{ role: "user", content: PROMPT }], max_tokens: OUTPUT }).withResponse()).response.headers.get(COST_HEADER),
  ],
  [
    "Chat Completions, translated to Messages",
    async (client) =>
      (await client.openai.chat.completions.create({ model: "claude", messages: [{ role: "user", content: PROMPT }], max_completion_tokens: OUTPUT }).withResponse()).response.headers.get(COST_HEADER),
  ],
  [
    "Messages, translated to Chat Completions",
    async (client) => (await client.anthropic.messages.create({ model: "gpt", messages: [{ role: "user", content: PROMPT }], max_tokens: OUTPUT }).withResponse()).response.headers.get(COST_HEADER),
  ],
];

describe("a text answer on a key with a spend limit is charged the provider's count in full", () => {
  beforeEach(() => forwarding().provider.answer((request) => answerOn(request.path)));

  test.each(CALLS)("%s", async (_name, send) => {
    const client = await limited("1000");
    expect(await send(client)).toBe(CHARGE);
    expect(await client.spentUnits()).toBe(CHARGE);
  });

  test("requests at once near the limit: each served one charged in full, the rest refused, the limit never passed", async () => {
    const client = await limited("300");
    const [, send] = CALLS[0]!;
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => send(client).then((cost) => cost, (error: { status?: number }) => error.status)));
    const served = outcomes.filter((outcome) => typeof outcome === "string");
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served).toEqual(served.map(() => CHARGE));
    expect(outcomes.filter((outcome) => outcome === 402)).toHaveLength(10 - served.length);
    expect(served.length).toBeLessThan(10);
    const spent = Number(await client.spentUnits());
    expect(spent).toBe(served.length * Number(CHARGE));
    expect(spent).toBeLessThanOrEqual(300);
  });
});

test("a Chat Completions request for n answers reserves n times its bound: the provider's output for all of them is charged in full", async () => {
  const { provider } = forwarding();
  // Ten answers of up to 100 tokens each: 1,000 output tokens, far above one answer's bound.
  const choices = Array.from({ length: 10 }, (_unused, index) => ({ index, message: { role: "assistant", content: "fine" }, logprobs: null, finish_reason: "length" }));
  provider.answer(() => ({ json: { ...chatAnswer({}, "length", {}), choices, usage: { prompt_tokens: PROVIDER_INPUT, completion_tokens: 1000, total_tokens: 1014 } } }));
  const client = await limited("10000");
  const { data, response } = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: PROMPT }], n: 10, max_completion_tokens: 100 }).withResponse();

  expect(data.choices).toHaveLength(10);
  expect(provider.received[0]!.body).toMatchObject({ n: 10, max_completion_tokens: 100 });
  expect(response.headers.get(COST_HEADER)).toBe("2014");
  expect(await client.spentUnits()).toBe("2014");
});

test("an image is reserved at its model's inputTokensPerImage, so a model that counts an image above the default is charged in full", async () => {
  const { provider } = forwarding();
  // A 1024×1024 image at detail high on gpt-4o-mini: 2,833 + 4 × 5,667 tokens, and 6 of text.
  provider.answer(() => ({ json: chatAnswer({ role: "assistant", content: "a cat" }, "stop", { prompt_tokens: 25_507, completion_tokens: 2, total_tokens: 25_509 }) }));
  const client = await limited("100000");
  const content = [
    { type: "text" as const, text: PROMPT },
    { type: "image_url" as const, image_url: { url: "https://example.com/cat.png", detail: "high" as const } },
  ];
  const { response } = await client.openai.chat.completions.create({ model: "mini", messages: [{ role: "user", content }], max_completion_tokens: 2 }).withResponse();

  expect(response.headers.get(COST_HEADER)).toBe("25511");
  expect(await client.spentUnits()).toBe("25511");
});

describe("embeddings on a key with a spend limit are charged the provider's count in full", () => {
  /** The provider counts 7 tokens for each text, where the gateway counts 2 ("hello there") or 3 ("how are you"). */
  const PER_TEXT = 7;
  beforeEach(() =>
    forwarding().provider.answer((request) => {
      const texts = (request.body as { input: string[] }).input;
      const tokens = texts.length * PER_TEXT;
      return { json: { object: "list", data: texts.map((_text, index) => ({ object: "embedding", index, embedding: [0.5] })), model: "emb-up", usage: { prompt_tokens: tokens, total_tokens: tokens } } };
    }),
  );
  const embed = (client: Clients) =>
    client.openai.embeddings.create({ model: "embed", input: ["hello there", "how are you"], encoding_format: "float" }).withResponse().then(({ response }) => response.headers.get(COST_HEADER));

  test("one request", async () => {
    const client = await limited("1000");
    expect(await embed(client)).toBe("14");
    expect(await client.spentUnits()).toBe("14");
  });

  test("requests at once near the limit: each served one charged in full, the rest refused, the limit never passed", async () => {
    const client = await limited("60");
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => embed(client).then((cost) => cost, (error: { status?: number }) => error.status)));
    const served = outcomes.filter((outcome) => typeof outcome === "string");
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served).toEqual(served.map(() => "14"));
    expect(outcomes.filter((outcome) => outcome === 402)).toHaveLength(10 - served.length);
    expect(served.length).toBeLessThan(10);
    const spent = Number(await client.spentUnits());
    expect(spent).toBe(served.length * 14);
    expect(spent).toBeLessThanOrEqual(60);
  });
});

describe("a transcription is charged the seconds the provider reports", () => {
  // 750 bytes of audio that is not a WAV: bounded at 1 second (6 kbit/s); the provider heard 30.
  const audio = Buffer.alloc(750, 1);
  beforeEach(() => forwarding().provider.answer(() => ({ json: { text: "a long silence", usage: { type: "duration", seconds: 30 } } })));
  const transcribe = async (client: Clients) =>
    (await client.openai.audio.transcriptions.create({ model: "listen", file: await toFile(audio, "speech.ogg", { type: "audio/ogg" }) }).withResponse()).response.headers.get(COST_HEADER);

  test("in full on a key without a limit, above the bound the gateway reserves on a key with one", async () => {
    const client = await clientsOf(forwarding());
    expect(await transcribe(client)).toBe("30");
    expect(await client.spentUnits()).toBe("30");
  });

  test("up to its reservation on a key with a limit: the limit holds even where audio below 6 kbit/s escapes the bound", async () => {
    const client = await limited("1000");
    expect(await transcribe(client)).toBe("1");
    expect(await client.spentUnits()).toBe("1");
  });
});
