/**
 * A `bedrock` provider's credentials and signature at the real boundary: the scripted Bedrock
 * verifies each request's SigV4 signature with the AWS SDK's own signer and the secret key, and
 * refuses a wrong secret or a date outside its window as AWS does. Also: the provider's config
 * refused by field, and a client's abort reaching Bedrock at once.
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import OpenAI from "openai";
import { GatewayConfig } from "@gateway-keys/gateway";
import { converseStream } from "@gateway-keys/testkit/scripted-bedrock";
import { clientsOf, ENV_KEYS, expectNoSecret, modelPath, NOVA, PROFILE_KEYS, REGION, useBedrock } from "./bedrock-support";

const forwarding = useBedrock();
const clients = () => clientsOf({ provider: forwarding().bedrock, gateway: forwarding().gateway });

const converseAnswer = (text: string) => ({ output: { message: { role: "assistant", content: [{ text }] } }, stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });

const textStream = (text: string) => [
  { type: "messageStart", payload: { role: "assistant" } },
  { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text } } },
  { type: "contentBlockStop", payload: { contentBlockIndex: 0 } },
  { type: "messageStop", payload: { stopReason: "end_turn" } },
  { type: "metadata", payload: { usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 }, metrics: { latencyMs: 50 } } },
];

describe("SigV4 and credentials", () => {
  test("a provider with a profile signs with the profile's key, read from the shared credentials file", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => converseStream(textStream("From the profile.")));
    const completion = await client.openai.chat.completions.create({ model: "profiled", messages: [{ role: "user", content: "hi" }], stream: true });
    let text = "";
    for await (const chunk of completion) text += chunk.choices[0]?.delta.content ?? "";

    expect(text).toBe("From the profile.");
    expect(bedrock.received[0]!.headers.authorization).toContain(`Credential=${PROFILE_KEYS.accessKeyId}/`);
    expect(bedrock.received[0]!.headers["x-amz-security-token"]).toBeUndefined();
    expect(bedrock.refusals).toEqual([]);
    expect(await client.spentUnits()).toBe("10");
  });

  test("a wrong secret key is refused by Bedrock's signature check (403): a 502 naming the provider, no secret quoted, nothing charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer("never") }));
    const failure = await client.openai.chat.completions.create({ model: "wrong-key", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);

    expect(bedrock.refusals).toEqual([expect.stringContaining("The request signature we calculated does not match")]);
    expect(failure).toMatchObject({ status: 502, code: "upstream_failed" });
    expect((failure as Error).message).toContain("The provider wrong refused the gateway's own credentials (403)");
    expectNoSecret(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error));
    expect(await client.spentUnits()).toBe("0");
  });

  test("a signature dated outside Bedrock's 5-minute window is refused as expired (403), a 502 to the client", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer("never") }));
    bedrock.skewClock(20 * 60_000);
    const failure = await client.anthropic.messages.create({ model: "nova", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);

    expect(bedrock.refusals).toEqual([expect.stringContaining("Signature expired")]);
    expect(failure).toMatchObject({ status: 502, error: { error: { type: "api_error" } } });
    expect(await client.spentUnits()).toBe("0");
  });

  test("the scripted Bedrock's check can fail: a body changed after signing is refused, the body as signed is answered", async () => {
    const { bedrock } = forwarding();
    bedrock.answer(() => ({ json: converseAnswer("ok") }));
    const url = new URL(`${bedrock.origin}${modelPath(NOVA, "converse")}`);
    const body = JSON.stringify({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    const signer = new SignatureV4({ service: "bedrock", region: REGION, credentials: ENV_KEYS, sha256: Sha256 });
    const signed = await signer.sign({ method: "POST", protocol: "http:", hostname: url.hostname, path: url.pathname, query: {}, headers: { host: url.host, "content-type": "application/json" }, body });
    const send = (sent: string) => fetch(url, { method: "POST", headers: signed.headers, body: sent });

    const tampered = await send(body.replace("hi", "ho"));
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get("x-amzn-errortype")).toMatch(/^InvalidSignatureException:/);
    expect((await send(body)).status).toBe(200);
  });
});

describe("a bedrock provider in --config", () => {
  test("a region or api Bedrock does not have is refused naming the field and what is allowed", () => {
    const parsed = GatewayConfig.safeParse({ providers: { b: { kind: "bedrock", region: "US East", api: "invoke" } }, models: [] });
    expect(parsed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["providers.b.region", "expected an AWS region such as us-east-1"],
      ["providers.b.api", 'expected api "converse" or "invoke-anthropic"'],
    ]);
  });

  test("a client that aborts a ConverseStream closes Bedrock's request at once", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    const endless = Array.from({ length: 500 }, (_, index) => ({ type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: `t${index} ` } } }));
    bedrock.answer(() => converseStream([{ type: "messageStart", payload: { role: "assistant" } }, ...endless], { gapMs: 20 }));
    const abort = new AbortController();
    const stream = await client.openai.chat.completions.create({ model: "nova", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true }, { signal: abort.signal });
    let pieces = 0;
    await (async () => {
      for await (const _ of stream) if (++pieces === 3) abort.abort();
    })().catch(() => undefined);
    const abortedAt = Date.now();
    await bedrock.received[0]!.closed;

    expect(pieces).toBe(3);
    expect(Date.now() - abortedAt).toBeLessThan(1000);
  });
});
