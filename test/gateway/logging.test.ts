/** Structured logs: on when asked, and never holding a secret. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Writable } from "node:stream";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond } from "./helpers";
import { maskedAddress } from "@gateway-keys/gateway/dist/http/request-log";

const REPO_ROOT = join(__dirname, "..", "..");

let lines: string[];
let gateway: TestGateway;

beforeAll(async () => {
  lines = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  gateway = await startTestGateway({ logger: { level: "trace", stream } });
});
afterAll(() => gateway.stop());

test("no secret or idempotency key appears in any log line, at trace level, across every kind of request", async () => {
  const account = accountClient(gateway);
  const created = await account.create({ name: "logged" }, "idem-secretive-1");
  const rotated = await account.rotate(created.body.keyId, { expectedVersion: 1 }, "idem-secretive-2");
  await respond(gateway, rotated.body.secret);
  await call(gateway.baseUrl, "POST", "/v1/responses", { apiKey: rotated.body.secret, body: { model: "echo-1", input: "x" } });
  await respond(gateway, created.body.secret); // rotated away: 401
  await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
    bearer: gateway.provisioningKey,
    idempotencyKey: "idem-secretive-3",
    rawBody: `{"name": "${rotated.body.secret}`,
  });
  await call(gateway.baseUrl, "POST", "/v1/account/api-keys", { bearer: rotated.body.secret, body: { name: "wrong kind" }, idempotencyKey: "auto" });
  await account.create({ name: rotated.body.secret.slice(0, 10), secret: rotated.body.secret }); // refused: unknown field

  const log = lines.join("");
  // The log is not empty: requests and refusals were logged, so the checks below mean something.
  expect(log).toContain("incoming request");
  expect(log).toContain("request refused");
  for (const secret of [gateway.provisioningKey, created.body.secret, rotated.body.secret]) {
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice(4, 36));
  }
  expect(log).not.toContain("idem-secretive");
});

test("a secret put in a path, a query and a header never reaches the log; the route pattern and issued ids do", async () => {
  const account = accountClient(gateway);
  const key = await gateway.createRegularKey();
  const from = lines.length;
  const asked = [
    `/v1/account/api-keys/${key.secret}`,
    `/v1/account/api-keys/${key.secret}/rotate`,
    `/v1/account/api-keys?after=${key.secret}&limit=5`,
    `/v1/${key.secret}`,
    `/v1/account/api-keys/${key.keyId}?token=${key.secret}`,
  ];
  for (const path of asked) await call(gateway.baseUrl, "GET", path, { bearer: gateway.provisioningKey, headers: { "x-debug": key.secret } });
  await call(gateway.baseUrl, "POST", `/v1/account/api-keys/${encodeURIComponent(key.secret)}/revoke`, {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: { expectedVersion: 1 },
  });
  await account.get(key.keyId);

  const log = lines.slice(from).join("");
  const urls = lines.slice(from).map((line) => JSON.parse(line) as { req?: { url: string; route?: string } }).flatMap((line) => (line.req ? [line.req] : []));
  expect(urls.length).toBeGreaterThanOrEqual(asked.length + 2);
  expect(log).not.toContain(key.secret);
  expect(log).not.toContain(key.secret.slice(4, 36));
  // What an operator needs stays: the route pattern, the ids the gateway issued, and the client's
  // network (never its full address: extension secret_use).
  expect(urls).toContainEqual({ url: `/v1/account/api-keys/${key.keyId}`, route: "/v1/account/api-keys/:keyId", method: "GET", remoteAddress: "127.0.0.x" });
  expect(urls.map((req) => req.url)).toContain("/v1/account/api-keys/[redacted]/rotate");
  expect(urls.map((req) => req.url)).toContain("/v1/account/api-keys?after=[redacted]&limit=5");
});

test("a team's and a webhook endpoint's ids, issued by the gateway too, are logged in their paths", async () => {
  const team = await call(gateway.baseUrl, "POST", "/v1/account/teams", { bearer: gateway.provisioningKey, body: { name: "logged team" }, idempotencyKey: "auto" });
  expect(team.status).toBe(201);
  const hook = await call(gateway.baseUrl, "POST", "/v1/account/webhooks", {
    bearer: gateway.provisioningKey,
    body: { url: "https://hooks.example.com/logged", events: ["key.expired"] },
    idempotencyKey: "auto",
  });
  expect(hook.status).toBe(201);
  const from = lines.length;
  await call(gateway.baseUrl, "GET", `/v1/account/teams/${team.body.teamId}`, { bearer: gateway.provisioningKey });
  await call(gateway.baseUrl, "GET", `/v1/account/webhooks/${hook.body.webhookId}`, { bearer: gateway.provisioningKey });
  const urls = lines.slice(from).map((line) => JSON.parse(line) as { req?: { url: string } }).flatMap((line) => (line.req ? [line.req.url] : []));
  expect(urls).toContain(`/v1/account/teams/${team.body.teamId}`);
  expect(urls).toContain(`/v1/account/webhooks/${hook.body.webhookId}`);
});

/**
 * Runs a gateway in a child process, as a deployment would, and returns everything the process
 * wrote to its real stdout and stderr (pino writes to file descriptors, not through
 * `process.stdout.write`, so only the process's own streams show what it logs).
 */
async function outputOfGatewayProcess(logger: "default" | "on"): Promise<string> {
  const script = `
    const { startGateway } = require("@gateway-keys/gateway");
    (async () => {
      const gateway = await startGateway(${logger === "on" ? "{ logger: true }" : "{}"});
      await fetch(gateway.url + "/v1/models");
      await fetch(gateway.url + "/v1/nothing");
      await gateway.close();
    })();`;
  const child = spawn(process.execPath, ["-e", script], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code).toBe(0);
  return output;
}

test("a gateway logs nothing when no logger is asked for, and logs to stdout when one is", async () => {
  // The positive case proves the capture sees pino's writes, so the empty one means something.
  expect(await outputOfGatewayProcess("on")).toContain("incoming request");
  expect(await outputOfGatewayProcess("default")).toBe("");
});

test("the request log masks a client's address: IPv4 without its last byte, IPv6 to its first three groups", () => {
  expect(["203.0.113.7", "::ffff:10.1.2.3", "2001:db8:1:2:3:4:5:6", "2001:db8::1", "::1", "unknown"].map(maskedAddress)).toEqual([
    "203.0.113.x",
    "10.1.2.x",
    "2001:db8:1::x",
    "2001:db8::x",
    "::x",
    "x",
  ]);
});
