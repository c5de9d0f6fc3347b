/**
 * Prometheus metrics scraped from the admin listener after real requests: the counters and
 * labels they show, that no secret or raw URL reaches them, that the public port does not serve
 * them, and that two gateways in one process keep their own counts.
 */
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call } from "./helpers";
import { readChatStream, SLOW_KEY_ENV, SLOW_MODEL, slowConfig, startSlowUpstream, type SlowUpstream } from "./ops-support";

let gateway: TestGateway;
let upstream: SlowUpstream;
let apiKey: string;
/** A value shaped like a secret that a careless client sends where no secret belongs. */
const PASTED_SECRET = "gwk_pastedSecretThatMustNeverBeALabel0123";

beforeAll(async () => {
  upstream = await startSlowUpstream(4, 100);
  process.env[SLOW_KEY_ENV] = "upstream-provider-secret-0001";
  gateway = await startTestGateway({ metricsPort: 0, config: slowConfig(upstream) });
  apiKey = (await gateway.createRegularKey({ name: "metrics", spendPolicy: { limitUnits: "1000" } })).secret;
});

afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
  delete process.env[SLOW_KEY_ENV];
});

async function scrape(of: TestGateway = gateway): Promise<string> {
  const response = await fetch(`${of.gateway.metricsUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one sample, by metric name and exact labels (in any order); undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    if (JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(match[3]);
  }
  return undefined;
}

const chat = (model: string, stream = false) =>
  call(gateway.baseUrl, "POST", "/v1/chat/completions", { bearer: apiKey, body: { model, stream, messages: [{ role: "user", content: "count me" }] } });

test("requests are counted by method, route pattern and status, with a latency histogram", async () => {
  const before = await scrape();
  const base = sample(before, "gateway_http_requests_total", { method: "POST", route: "/v1/chat/completions", status: "200" }) ?? 0;
  expect((await chat("echo-1")).status).toBe(200);
  expect((await chat("echo-1")).status).toBe(200);
  const keyId = (await gateway.createRegularKey({ name: "patterned" })).keyId;
  expect((await call(gateway.baseUrl, "GET", `/v1/account/api-keys/${keyId}`, { bearer: gateway.provisioningKey })).status).toBe(200);

  const text = await scrape();
  expect(sample(text, "gateway_http_requests_total", { method: "POST", route: "/v1/chat/completions", status: "200" })).toBe(base + 2);
  expect(sample(text, "gateway_http_request_duration_seconds_count", { method: "POST", route: "/v1/chat/completions", status: "200" })).toBe(base + 2);
  // The pattern, never the key id in the path.
  expect(sample(text, "gateway_http_requests_total", { method: "GET", route: "/v1/account/api-keys/:keyId", status: "200" })).toBe(1);
  expect(text).not.toContain(keyId);
});

test("model requests are counted by model and outcome, and a model id no model has is counted as unknown", async () => {
  const before = await scrape();
  const succeeded = sample(before, "gateway_model_requests_total", { model: "echo-1", outcome: "succeeded" }) ?? 0;
  const unknown = sample(before, "gateway_model_requests_total", { model: "unknown", outcome: "failed" }) ?? 0;
  expect((await chat("echo-1")).status).toBe(200);
  expect((await chat(PASTED_SECRET)).status).toBe(404);

  const text = await scrape();
  expect(sample(text, "gateway_model_requests_total", { model: "echo-1", outcome: "succeeded" })).toBe(succeeded + 1);
  expect(sample(text, "gateway_model_requests_total", { model: "unknown", outcome: "failed" })).toBe(unknown + 1);
});

test("a forwarded model's upstream latency is observed by provider, and its reservation is in flight while it streams", async () => {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: SLOW_MODEL, stream: true, messages: [{ role: "user", content: "slowly" }] }),
  });
  let during: Promise<string> | undefined;
  const { done } = await readChatStream(response, () => {
    during = scrape();
  });
  expect(done).toBe(true);
  const whileStreaming = await during!;
  expect(sample(whileStreaming, "gateway_spend_reservations_in_flight")).toBe(1);
  expect(sample(whileStreaming, "gateway_spend_reserved_units")).toBeGreaterThan(0);
  expect(sample(whileStreaming, "gateway_http_requests_in_flight")).toBeGreaterThanOrEqual(1);

  const after = await scrape();
  expect(sample(after, "gateway_upstream_request_duration_seconds_count", { provider: "slow", outcome: "ok" })).toBe(1);
  expect(sample(after, "gateway_spend_reservations_in_flight")).toBe(0);
  expect(sample(after, "gateway_spend_reserved_units")).toBe(0);
  // The stream is one request, counted once it ended.
  expect(sample(after, "gateway_model_requests_total", { model: SLOW_MODEL, outcome: "succeeded" })).toBe(1);
});

test("no secret and no raw URL reaches the metrics", async () => {
  await call(gateway.baseUrl, "GET", `/v1/no-such-route/${PASTED_SECRET}`);
  await call(gateway.baseUrl, "GET", "/v1/account/whoami", { bearer: `${PASTED_SECRET}x` });
  const text = await scrape();
  expect(sample(text, "gateway_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
  for (const secret of [PASTED_SECRET, apiKey, gateway.provisioningKey, "upstream-provider-secret-0001", "no-such-route"]) {
    expect(text).not.toContain(secret);
  }
});

test("the public port does not serve the metrics, and pool figures appear exactly when the store has a pool", async () => {
  expect((await call(gateway.baseUrl, "GET", "/metrics")).status).toBe(404);
  const scraped = await scrape();
  if (gateway.store.kind === "postgres") {
    expect(sample(scraped, "gateway_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
  } else {
    expect(scraped).not.toContain("gateway_db_pool");
  }
});

test("two gateways in one process keep their own registries", async () => {
  const other = await startTestGateway({ storage: "memory", metricsPort: 0 });
  try {
    const ownBefore = sample(await scrape(), "gateway_http_requests_total", { method: "GET", route: "/healthz", status: "200" }) ?? 0;
    for (let i = 0; i < 3; i++) expect((await call(other.baseUrl, "GET", "/healthz")).status).toBe(200);
    expect(sample(await scrape(other), "gateway_http_requests_total", { method: "GET", route: "/healthz", status: "200" })).toBe(3);
    expect(sample(await scrape(), "gateway_http_requests_total", { method: "GET", route: "/healthz", status: "200" }) ?? 0).toBe(ownBefore);
  } finally {
    await other.stop();
  }
});
