/**
 * Traces (docs/operators/operations.md#traces) from a real gateway process to a real Jaeger, read
 * back from Jaeger's query API: the caller's trace continued through the gateway, the spans and
 * attributes an operator reads, no secret anywhere in them, and a receiver that is gone costing
 * requests nothing but spans, counted.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import OpenAI from "openai";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { freePort } from "@gateway-keys/testkit/free-port";
import { startJaeger, type Jaeger, type JaegerSpan } from "@gateway-keys/testkit/jaeger";
import { call } from "../gateway/helpers";
import { describeWith } from "../support/needs";

/** A caller's W3C trace context: a new trace id, the caller's span id, sampled. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const named = (spans: JaegerSpan[], name: string) => spans.filter((span) => span.name === name);

describeWith("jaeger")("traces through a gateway process to Jaeger", () => {
  let jaeger: Jaeger;
  let gateway: GatewayProcess;
  let metricsUrl: string;
  let key: ApiKeyWithSecret;
  /** Two deployments of `traced-chat` (and `unsampled-chat`): the first answers 503 (a route failure), the second answers. */
  let down: ScriptedProvider;
  let up: ScriptedProvider;
  let dir: string;

  beforeAll(async () => {
    [down, up] = [await startScriptedProvider(), await startScriptedProvider()];
    down.answer(() => ({ status: 503, json: { error: { message: "overloaded", type: "server_error" } } }));
    up.answer((request) => {
      const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
      if ((request.body as { stream?: boolean }).stream !== true) {
        return {
          json: { id: "chatcmpl-1", object: "chat.completion", created: 1, model: "up-model", choices: [{ index: 0, message: { role: "assistant", content: "hi there" }, finish_reason: "stop" }], usage },
        };
      }
      const chunk = (delta: object, finish: string | null) => ({ id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "up-model", choices: [{ index: 0, delta, finish_reason: finish }] });
      return {
        events: [
          { data: chunk({ role: "assistant", content: "hi" }, null) },
          { data: chunk({ content: " there" }, null) },
          { data: chunk({}, "stop") },
          { data: { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1, model: "up-model", choices: [], usage } },
          { data: "[DONE]" },
        ],
      };
    });
    dir = mkdtempSync(join(tmpdir(), "traces-"));
    const config = {
      providers: {
        down: { kind: "openai", baseUrl: `${down.origin}/v1`, apiKeyEnv: "TRACED_UPSTREAM_KEY" },
        up: { kind: "openai", baseUrl: `${up.origin}/v1`, apiKeyEnv: "TRACED_UPSTREAM_KEY" },
      },
      models: [
        {
          id: "traced-chat",
          family: "chat",
          routes: [{ provider: "down", model: "down-model" }, { provider: "up", model: "up-model" }],
          pricing: { inputUnitsPerMillionTokens: "1000", outputUnitsPerMillionTokens: "2000" },
          maxOutputTokens: 100,
        },
        // The same two routes for one test alone: the first's cooldown, left by the others' failures, never skips it.
        {
          id: "unsampled-chat",
          family: "chat",
          routes: [{ provider: "down", model: "unsampled-down-model" }, { provider: "up", model: "up-model" }],
          pricing: { inputUnitsPerMillionTokens: "1000", outputUnitsPerMillionTokens: "2000" },
          maxOutputTokens: 100,
        },
      ],
    };
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
    jaeger = await startJaeger();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    gateway = await startGatewayProcess({
      bootstrap: { ownerId: "traced" },
      args: ["--otel-endpoint", jaeger.otlpUrl, "--metrics-port", String(metricsPort), "--config", join(dir, "config.json")],
      // Every trace the gateway starts is kept, so a request without a caller's context is seen too.
      env: {
        OTEL_TRACES_SAMPLER: "parentbased_always_on",
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
        TRACED_UPSTREAM_KEY: "upstream-secret-never-traced",
      },
    });
    const created = await call<ApiKeyWithSecret>(gateway.url, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: randomBytes(8).toString("hex"),
      body: { name: "traced-service" },
    });
    expect(created.status).toBe(201);
    key = created.body;
  });
  afterAll(async () => {
    await gateway?.stop();
    await jaeger?.stop();
    await down?.close();
    await up?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (secret: string, traceparent: string) =>
    new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { traceparent } });

  it("continues the caller's trace: a server span under the caller's span, authentication beneath it, the key named and no secret anywhere", async () => {
    const caller = callerContext();
    const answer = await client(key.secret, caller.traceparent).chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello" }] });
    expect(answer.choices[0]!.message.content).toBeTruthy();

    const spans = await jaeger.waitForTrace(caller.traceId, (found) => named(found, "gateway.authenticate").length === 1 && named(found, "POST /v1/chat/completions").length === 1);
    const [server] = named(spans, "POST /v1/chat/completions");
    const [auth] = named(spans, "gateway.authenticate");
    expect(server).toMatchObject({
      traceId: caller.traceId,
      parentSpanId: caller.spanId,
      kind: "server",
      serviceName: "gateway-keys",
      tags: expect.objectContaining({
        "http.request.method": "POST",
        "http.route": "/v1/chat/completions",
        "url.path": "/v1/chat/completions",
        "http.response.status_code": 200,
        "gateway.key.id": key.keyId,
        "gateway.owner.id": "traced",
      }),
    });
    expect(auth).toMatchObject({ parentSpanId: server!.spanId, tags: expect.objectContaining({ "gateway.key.id": key.keyId, "gateway.key.secret": "current" }) });

    const everything = JSON.stringify(spans);
    for (const secret of [key.secret, gateway.provisioningKey!]) expect(everything).not.toContain(secret);
  });

  it("a forwarded call: a client span per route tried (the failed one an error, fallback visible), its trace context at the provider, the reservation and the charge, the model, usage and cost on the server span", async () => {
    const caller = callerContext();
    const { data, response } = await client(key.secret, caller.traceparent)
      .chat.completions.create({ model: "traced-chat", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("hi there");

    const spans = await jaeger.waitForTrace(caller.traceId, (found) => named(found, "chat up-model").length === 1 && named(found, "gateway.charge").length === 1);
    const [server] = named(spans, "POST /v1/chat/completions");
    const [failed] = named(spans, "chat down-model");
    const [answered] = named(spans, "chat up-model");
    expect(failed).toMatchObject({
      parentSpanId: server!.spanId,
      kind: "client",
      tags: expect.objectContaining({ "gateway.route": "down", "gateway.attempt": 0, "error.type": "upstream_failed", "otel.status_code": "ERROR", "gen_ai.provider.name": "openai" }),
    });
    expect(answered).toMatchObject({
      parentSpanId: server!.spanId,
      kind: "client",
      tags: expect.objectContaining({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "up-model",
        "gen_ai.request.stream": false,
        "gateway.route": "up",
        "gateway.route.kind": "relay",
        "gateway.attempt": 1,
      }),
    });
    expect(answered!.tags["otel.status_code"]).toBeUndefined();
    expect(failed!.startMicros).toBeLessThanOrEqual(answered!.startMicros);
    // Each provider request carried its own attempt's span as the parent, in the caller's trace.
    expect(down.received.at(-1)!.headers.traceparent).toBe(`00-${caller.traceId}-${failed!.spanId}-01`);
    expect(up.received.at(-1)!.headers.traceparent).toBe(`00-${caller.traceId}-${answered!.spanId}-01`);

    const [reserve] = named(spans, "gateway.reserve");
    const [charge] = named(spans, "gateway.charge");
    const cost = response.headers.get("x-gateway-cost-units");
    expect(reserve).toMatchObject({ parentSpanId: server!.spanId, tags: expect.objectContaining({ "gateway.reserved_units": expect.any(String) }) });
    expect(charge).toMatchObject({ parentSpanId: server!.spanId, tags: expect.objectContaining({ "gateway.cost_units": cost }) });
    expect(reserve!.startMicros).toBeLessThanOrEqual(failed!.startMicros);
    expect(charge!.startMicros).toBeGreaterThanOrEqual(answered!.startMicros);
    expect(server!.tags).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "traced-chat",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      "gateway.cost_units": cost,
    });
    const everything = JSON.stringify(spans);
    for (const secret of [key.secret, gateway.provisioningKey!, "upstream-secret-never-traced"]) expect(everything).not.toContain(secret);
  });

  it("a streamed call: the answering attempt's time to first chunk, and a stream span to its end", async () => {
    const caller = callerContext();
    const stream = await client(key.secret, caller.traceparent).chat.completions.create({
      model: "traced-chat",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("hi there");

    const spans = await jaeger.waitForTrace(caller.traceId, (found) => named(found, "gateway.stream").length === 1 && named(found, "gateway.charge").length === 1);
    const [server] = named(spans, "POST /v1/chat/completions");
    const [answered] = named(spans, "chat up-model");
    const [streamed] = named(spans, "gateway.stream");
    expect(answered!.tags).toMatchObject({ "gen_ai.request.stream": true, "gen_ai.response.time_to_first_chunk": expect.any(Number) });
    expect(streamed!.parentSpanId).toBe(server!.spanId);
    // After the attempt began, and on past its end (span clocks are compared at millisecond precision: the SDK anchors each span's clock).
    expect(streamed!.startMicros).toBeGreaterThanOrEqual(answered!.startMicros);
    expect(streamed!.startMicros + streamed!.durationMicros).toBeGreaterThanOrEqual(answered!.startMicros + answered!.durationMicros);
    expect(server!.tags).toMatchObject({ "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 5 });
  });

  it("a caller's trace that is not sampled: no span is kept, and the provider hears the trace as not sampled", async () => {
    const unsampled = callerContext();
    const traceparent = `00-${unsampled.traceId}-${unsampled.spanId}-00`;
    await client(key.secret, traceparent).chat.completions.create({ model: "traced-chat", messages: [{ role: "user", content: "hello" }] });
    expect(up.received.at(-1)!.headers.traceparent).toMatch(new RegExp(`^00-${unsampled.traceId}-[0-9a-f]{16}-00$`));
    // A sampled request after it: once its spans are in, the unsampled one's would have been too.
    const sampled = callerContext();
    await client(key.secret, sampled.traceparent).chat.completions.create({ model: "traced-chat", messages: [{ role: "user", content: "hello" }] });
    await jaeger.waitForTrace(sampled.traceId, (found) => named(found, "gateway.charge").length === 1);
    expect(await jaeger.trace(unsampled.traceId)).toEqual([]);
  });

  it("a caller's trace that is not sampled goes on to every route the request tries, as not sampled, under the gateway's one span", async () => {
    const unsampled = callerContext();
    const [downBefore, upBefore] = [down.received.length, up.received.length];
    await client(key.secret, `00-${unsampled.traceId}-${unsampled.spanId}-00`).chat.completions.create({ model: "unsampled-chat", messages: [{ role: "user", content: "hello" }] });
    expect([down.received.length - downBefore, up.received.length - upBefore]).toEqual([1, 1]);
    const failed = down.received.at(-1)!.headers.traceparent;
    const answered = up.received.at(-1)!.headers.traceparent;
    expect(failed).toMatch(new RegExp(`^00-${unsampled.traceId}-[0-9a-f]{16}-00$`));
    // No attempt span is made for a trace that is not kept: both attempts name the gateway's server span, never the caller's.
    expect(answered).toBe(failed);
    expect(failed).not.toContain(unsampled.spanId);
  });

  it("records a refused key as a failed authentication under a 401 server span", async () => {
    const caller = callerContext();
    const refused = await client(`gwk_${"A".repeat(43)}`, caller.traceparent)
      .chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello" }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);

    const spans = await jaeger.waitForTrace(caller.traceId, (found) => named(found, "gateway.authenticate").length === 1 && named(found, "POST /v1/chat/completions").length === 1);
    const [server] = named(spans, "POST /v1/chat/completions");
    const [auth] = named(spans, "gateway.authenticate");
    expect(server!.tags["http.response.status_code"]).toBe(401);
    expect(auth!.tags).toMatchObject({ "error.type": "invalid_credentials", "gateway.error.code": "invalid_credentials", "otel.status_code": "ERROR" });
    expect(auth!.tags["gateway.key.id"]).toBeUndefined();
  });

  it("a request without a caller's context starts a trace of its own", async () => {
    const response = await fetch(`${gateway.url}/v1/models`);
    expect(response.status).toBe(200);
    // The gateway does not answer with its trace id; find the trace by the service's operation.
    const found = await until(async () => {
      const listed = await fetch(`${jaeger.queryUrl}/api/traces?service=gateway-keys&operation=${encodeURIComponent("GET /v1/models")}&limit=5`);
      return ((await listed.json()) as { data: { spans: { references: unknown[] }[] }[] }).data;
    });
    expect(found[0]!.spans[0]!.references).toEqual([]);
  });

  it("with the receiver gone, requests still succeed and the dropped spans are counted", async () => {
    const dropped = async () => {
      const response = await fetch(`${metricsUrl}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      return [...text.matchAll(/^gateway_trace_spans_dropped_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    const before = await dropped();
    await jaeger.stop();
    for (let i = 0; i < 5; i++) {
      const caller = callerContext();
      const answer = await client(key.secret, caller.traceparent).chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: `hello ${i}` }] });
      expect(answer.choices[0]!.message.content).toBeTruthy();
    }
    // Each request's spans are exported within the batch delay; the export to a closed port fails at once.
    const after = await until(dropped, (count) => count >= before + 10);
    expect(after).toBeGreaterThanOrEqual(before + 10);
  });
});

/** Polls `read` until `done` holds (default: a non-empty list), for at most 20 s. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean = (value) => Array.isArray(value) && value.length > 0): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in 20 s; last: ${String(JSON.stringify(value)).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
