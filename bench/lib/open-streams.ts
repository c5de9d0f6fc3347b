/**
 * Resident memory a process holds per open stream: a gateway process (its own, so its memory is
 * its own) — or the floor proxy, as the peer — forwards streams to an upstream that sends each
 * stream's first event and then holds it open; the process's resident set is read from /proc
 * before and after `count` streams are open.
 */
import { writeFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, request, type IncomingMessage, Agent } from "node:http";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { startGatewayProcess } from "@gateway-keys/testkit/gateway-process";

const FIRST = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })}\n\n`;

function residentKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((row) => row.startsWith("VmRSS:"));
  return Number(line?.replace(/\D+/g, "") ?? NaN);
}

export interface OpenStreamsCell {
  streams: number;
  baselineKiB: number;
  openKiB: number;
  perStreamKiB: number;
}

/** For looking inside the process (bench/profile-open-streams.ts): more environment, and a call at each reading. */
export interface OpenStreamsProbe {
  env?: Record<string, string>;
  /** Called with the gateway's pid just after each reading of its resident set, the baseline's then the open streams'. */
  atReading?: (pid: number, streamsOpen: number) => Promise<void>;
  /** The conversation each stream sends (default one short user message): a long one shows what a stream keeps of its request. */
  messages?: Array<{ role: string; content: string }>;
}

const HOLD = [{ role: "user", content: "hold" }];

/** A process holding open streams: where a stream is opened, with what headers, and how to stop it. */
interface StreamHolder {
  pid: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  stop(): Promise<void>;
}

/** The gateway, forwarding a chat model to the upstream, with a key to call it. */
async function gatewayHolder(upstreamUrl: string, dir: string, env: Record<string, string> = {}, messages = HOLD): Promise<StreamHolder> {
  const configPath = join(dir, "config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      providers: { up: { kind: "openai", baseUrl: upstreamUrl, apiKeyEnv: "BENCH_OPEN_STREAMS_KEY" } },
      models: [{ id: "held", family: "chat", routes: [{ provider: "up", model: "held" }], pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" }, maxOutputTokens: 64 }],
    }),
  );
  const gateway = await startGatewayProcess({
    bootstrap: { ownerId: "bench" },
    args: ["--config", configPath, "--rate-limit", "1000000", "--rate-burst", "1000000"],
    env: { BENCH_OPEN_STREAMS_KEY: "unused", ...env },
  });
  const created = await fetch(`${gateway.url}/v1/account/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.provisioningKey}`, "content-type": "application/json", "idempotency-key": "open-streams" },
    body: JSON.stringify({ name: "open streams" }),
  });
  const { secret } = (await created.json()) as { secret: string };
  return {
    pid: gateway.child.pid!,
    url: `${gateway.url}/v1/chat/completions`,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "held", messages, stream: true }),
    stop: () => gateway.stop(),
  };
}

/** The floor proxy (floor-proxy.ts) in a process of its own: what any Node proxy holds per stream. */
async function floorHolder(upstreamUrl: string, env: Record<string, string> = {}, messages = HOLD): Promise<StreamHolder> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "floor-proxy-process.ts"), upstreamUrl], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return {
    pid: child.pid!,
    url: `${line}/chat/completions`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "held", messages, stream: true }),
    stop: async () => {
      child.kill();
      await once(child, "exit");
    },
  };
}

/**
 * Resident memory per open stream of the gateway, or of the floor proxy (the peer the gateway is
 * measured against: two sockets, two HTTP parsers and a relay, nothing else).
 */
export async function measureOpenStreams(count: number, probe: OpenStreamsProbe = {}, target: "gateway" | "floor" = "gateway"): Promise<OpenStreamsCell> {
  const held: import("node:http").ServerResponse[] = [];
  const upstream = createServer((incoming, response) => {
    incoming.resume();
    incoming.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(FIRST);
      held.push(response);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), "open-streams-"));
  const holder = target === "gateway" ? await gatewayHolder(upstreamUrl, dir, probe.env, probe.messages) : await floorHolder(upstreamUrl, probe.env, probe.messages);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const opened: IncomingMessage[] = [];
  try {
    const open = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const outgoing = request(holder.url, { method: "POST", agent, headers: holder.headers });
        outgoing.on("error", reject);
        outgoing.on("response", (answer) => answer.once("data", () => resolve(answer)));
        outgoing.end(holder.body);
      });
    const openMany = async (n: number) => {
      for (let at = 0; at < n; at += 100) opened.push(...(await Promise.all(Array.from({ length: Math.min(100, n - at) }, open))));
    };
    // Warm the process (JIT, pools) and settle, then measure what streams add.
    await openMany(50);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baselineKiB = residentKiB(holder.pid);
    await probe.atReading?.(holder.pid, 0);
    await openMany(count);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const openKiB = residentKiB(holder.pid);
    await probe.atReading?.(holder.pid, count);
    return { streams: count, baselineKiB, openKiB, perStreamKiB: (openKiB - baselineKiB) / count };
  } finally {
    for (const answer of opened) answer.destroy();
    for (const response of held) response.destroy();
    agent.destroy();
    await holder.stop();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
