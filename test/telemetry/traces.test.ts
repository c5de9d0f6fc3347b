/**
 * Traces (docs/operators/operations.md#traces) from a real gateway process to a real Jaeger, read
 * back from Jaeger's query API: the caller's trace continued through the gateway, the spans and
 * attributes an operator reads, no secret anywhere in them, and a receiver that is gone costing
 * requests nothing but spans, counted.
 */
import { randomBytes } from "node:crypto";
import OpenAI from "openai";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
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

  beforeAll(async () => {
    jaeger = await startJaeger();
    gateway = await startGatewayProcess({
      bootstrap: { ownerId: "traced" },
      args: ["--otel-endpoint", jaeger.otlpUrl, "--metrics-port", "0"],
      // Every trace the gateway starts is kept, so a request without a caller's context is seen too.
      env: { OTEL_TRACES_SAMPLER: "parentbased_always_on", OTEL_BSP_SCHEDULE_DELAY: "200", OTEL_EXPORTER_OTLP_TIMEOUT: "1000" },
    });
    metricsUrl = /metrics at (\S+)\n/.exec(gateway.output())![1]!;
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
    expect(auth!.tags).toMatchObject({ "error.type": expect.any(String), otel_status_code: "ERROR" });
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
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
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
    if (Date.now() > deadline) throw new Error(`not reached in 20 s; last: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
