/**
 * The W3C trace context a gateway process sends its provider (docs/operators/operations.md#traces),
 * read at a scripted provider: a caller's context goes on whether its trace is sampled or not; a
 * trace the gateway starts itself and its sampler drops sends none (W3C passes on a caller's
 * context, it does not invent one nobody keeps); a kept one sends its context, sampled.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { call } from "../gateway/helpers";

const MODEL = "context-chat";

describe("the trace context a gateway sends its provider", () => {
  let upstream: ScriptedProvider;
  /** An OTLP/HTTP receiver that takes every export and keeps nothing: the gateways' `--otel-endpoint`. */
  let receiver: Server;
  let receiverUrl: string;
  let dir: string;
  const started: GatewayProcess[] = [];

  beforeAll(async () => {
    upstream = await startScriptedProvider();
    upstream.answer(() => ({
      json: {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "up-model",
        choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      },
    }));
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(200, { "content-type": "application/x-protobuf" }).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), "trace-context-"));
    const config = {
      providers: { up: { kind: "openai", baseUrl: `${upstream.origin}/v1`, apiKeyEnv: "CONTEXT_UPSTREAM_KEY" } },
      models: [{ id: MODEL, family: "chat", routes: [{ provider: "up", model: "up-model" }], pricing: { inputUnitsPerMillionTokens: "1000", outputUnitsPerMillionTokens: "2000" }, maxOutputTokens: 100 }],
    };
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  });
  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    await upstream?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A gateway process exporting to the receiver with `sampler` (`OTEL_TRACES_*` variables), and a chat client of a new key that sends `traceparent` when given one. */
  async function tracedGateway(sampler: Record<string, string>) {
    const gateway = await startGatewayProcess({
      bootstrap: { ownerId: "context" },
      args: ["--otel-endpoint", receiverUrl, "--config", join(dir, "config.json")],
      env: { ...sampler, OTEL_BSP_SCHEDULE_DELAY: "200", CONTEXT_UPSTREAM_KEY: "upstream-secret" },
    });
    started.push(gateway);
    const created = await call<ApiKeyWithSecret>(gateway.url, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: randomBytes(8).toString("hex"),
      body: { name: "context" },
    });
    expect(created.status).toBe(201);
    /** Sends one chat (with `traceparent` when given) and returns the `traceparent` the provider received with it. */
    return async (traceparent?: string) => {
      const client = new OpenAI({ apiKey: created.body.secret, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: traceparent ? { traceparent } : {} });
      const before = upstream.received.length;
      const answer = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hello" }] });
      expect(answer.choices[0]!.message.content).toBe("hi");
      expect(upstream.received.length).toBe(before + 1);
      return upstream.received.at(-1)!.headers.traceparent;
    };
  }

  const callerTrace = () => ({ traceId: randomBytes(16).toString("hex"), spanId: randomBytes(8).toString("hex") });

  it("a trace the gateway starts and drops sends no context on; a caller's goes on, sampled or not", async () => {
    const chat = await tracedGateway({ OTEL_TRACES_SAMPLER: "parentbased_always_off" });

    expect(await chat()).toBeUndefined();

    const unsampled = callerTrace();
    const sentUnsampled = await chat(`00-${unsampled.traceId}-${unsampled.spanId}-00`);
    expect(sentUnsampled).toMatch(new RegExp(`^00-${unsampled.traceId}-[0-9a-f]{16}-00$`));

    const sampled = callerTrace();
    const sentSampled = await chat(`00-${sampled.traceId}-${sampled.spanId}-01`);
    expect(sentSampled).toMatch(new RegExp(`^00-${sampled.traceId}-[0-9a-f]{16}-01$`));
    // The gateway's own span stands between the caller's and the provider's.
    expect(sentSampled).not.toContain(sampled.spanId);
  });

  it("at a ratio, each trace the gateway starts is either kept and sent on as sampled, or dropped and sends nothing", async () => {
    const chat = await tracedGateway({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" });
    const sent: (string | string[] | undefined)[] = [];
    // 40 traces at one in two: all kept or all dropped has a chance of 2 in 2^40.
    for (let i = 0; i < 40; i++) sent.push(await chat());
    const kept = sent.filter((traceparent) => traceparent !== undefined);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(sent.length);
    // The SDK's own sampler decided each kept trace as the gateway's early question did: never a context saying "not sampled".
    for (const traceparent of kept) expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(new Set(kept).size).toBe(kept.length);
  });
});
