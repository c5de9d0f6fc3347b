/**
 * Graceful shutdown of the real `gateway serve` process: on SIGTERM a stream in flight finishes
 * intact, new connections are refused, and the process exits 0; a stream longer than
 * `--drain-timeout` is cut at the timeout and the process still exits 0.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { readChatStream, SLOW_KEY_ENV, SLOW_MODEL, slowConfig, slowText, startSlowUpstream, type SlowUpstream } from "./ops-support";

const PIECES = 10;
const INTERVAL_MS = 150;

let upstream: SlowUpstream;
let dir: string;
let configPath: string;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = await startSlowUpstream(PIECES, INTERVAL_MS);
  dir = await mkdtemp(join(tmpdir(), "ops-shutdown-"));
  configPath = join(dir, "config.json");
  await writeFile(configPath, JSON.stringify(slowConfig(upstream)));
});

afterAll(async () => {
  await Promise.all(running.map((gateway) => gateway.stop()));
  await upstream?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function startServe(extraArgs: string[]): Promise<{ gateway: GatewayProcess; apiKey: string }> {
  const gateway = await startGatewayProcess({
    bootstrap: { ownerId: "ops-owner" },
    args: ["--config", configPath, ...extraArgs],
    env: { [SLOW_KEY_ENV]: "upstream-secret-not-checked" },
  });
  running.push(gateway);
  const created = await fetch(`${gateway.url}/v1/account/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.provisioningKey}`, "content-type": "application/json", "idempotency-key": "ops-key-1" },
    body: JSON.stringify({ name: "ops" }),
  });
  expect(created.status).toBe(201);
  return { gateway, apiKey: ((await created.json()) as { secret: string }).secret };
}

/**
 * A client that keeps an idle connection open for a minute, as a proxy in front of the gateway
 * would: the gateway, not the client, must close it once the stream ends.
 */
const patientClient = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
afterAll(() => patientClient.close());

function startStream(url: string, apiKey: string): ReturnType<typeof undiciFetch> {
  return undiciFetch(`${url}/v1/chat/completions`, {
    dispatcher: patientClient,
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: SLOW_MODEL, stream: true, messages: [{ role: "user", content: "take your time" }] }),
  });
}

/** Whether a new TCP connection to the gateway's port is refused. */
function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

test("on SIGTERM a stream in flight completes intact, new connections are refused, and the process exits 0", async () => {
  const { gateway, apiKey } = await startServe([]);
  const response = await startStream(gateway.url, apiKey);
  expect(response.status).toBe(200);

  let signalledAt = 0;
  let refusedDuringStream: boolean | undefined;
  const streamed = readChatStream(response, () => {
    // The first event is in: the stream is in flight. Stop the gateway now.
    signalledAt = Date.now();
    gateway.child.kill("SIGTERM");
  });
  // While the stream still has most of its pieces to go, the port stops accepting.
  const refusal = (async () => {
    while (signalledAt === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const deadline = signalledAt + (PIECES * INTERVAL_MS) / 2;
    while (Date.now() < deadline) {
      if (await connectionRefused(gateway.url)) return (refusedDuringStream = true);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return (refusedDuringStream = false);
  })();

  const { text, done } = await streamed;
  const streamEndedAt = Date.now();
  await refusal;
  expect({ text, done }).toEqual({ text: slowText(PIECES), done: true });
  expect(refusedDuringStream).toBe(true);
  expect(await gateway.exited()).toEqual({ code: 0, signal: null });
  // Promptly once the stream ended: its keep-alive connection did not hold the close open (72 s).
  expect(Date.now() - streamEndedAt).toBeLessThan(5000);
  // The stream outlived the signal by most of its length: it was drained, not cut.
  expect(streamEndedAt - signalledAt).toBeGreaterThan((PIECES * INTERVAL_MS) / 2);
});

test("a stream longer than --drain-timeout is cut at the timeout and the process still exits 0", async () => {
  const { gateway, apiKey } = await startServe(["--drain-timeout", "0.3"]);
  const response = await startStream(gateway.url, apiKey);
  expect(response.status).toBe(200);
  let signalledAt = 0;
  const { text, done } = await readChatStream(response, () => {
    signalledAt = Date.now();
    gateway.child.kill("SIGTERM");
  }).catch(() => ({ text: "(cut)", done: false }));
  const exit = await gateway.exited();
  const exitedAfterMs = Date.now() - signalledAt;

  expect(done).toBe(false);
  expect(text).not.toBe(slowText(PIECES));
  expect(exit).toEqual({ code: 0, signal: null });
  // Cut at 0.3 s, well before the stream's 1.5 s: the timeout, not the stream, ended the wait.
  expect(exitedAfterMs).toBeLessThan(PIECES * INTERVAL_MS);
});
