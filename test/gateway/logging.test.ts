/** Structured logs: on when asked, and never holding a secret. */
import { Writable } from "node:stream";
import { startTestGateway, type TestGateway } from "../support/gateway";
import { accountClient, call, respond } from "./helpers";

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

test("a gateway logs nothing when no logger is asked for", async () => {
  const writes: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  const quiet = await startTestGateway({ storage: "memory" });
  (process.stdout as { write: unknown }).write = (chunk: unknown) => {
    writes.push(String(chunk));
    return true;
  };
  try {
    await call(quiet.baseUrl, "GET", "/v1/models");
    await call(quiet.baseUrl, "GET", "/v1/nothing");
  } finally {
    (process.stdout as { write: unknown }).write = original;
    await quiet.stop();
  }
  expect(writes).toEqual([]);
});
