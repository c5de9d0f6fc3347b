/**
 * What a gateway process allocates per request under the gateway bench's throughput load (whole
 * Chat Completions at 16 connections, the bench's key, SQLite): V8's sampling heap profiler,
 * counting objects the young and old collections have already freed, so the figures are what each
 * request makes the garbage collector do rather than what stays alive. The gateway runs as
 * `gateway serve` in its own process with its inspector on a loopback port; this script drives the
 * profiler over the DevTools protocol. Prints bytes per request by allocating function and by
 * where the code lives, with gateway frames named by their TypeScript source line.
 *
 * Run: bash scripts/run node bench/profile-allocations.ts   (PROFILE_SECONDS, default 5;
 * PROFILE_MODE=streamed for streamed answers)
 */
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startGatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { isGatewayCode, locate, type CallFrame } from "./lib/cpu-profile.ts";
import { BENCH_UPSTREAM_ENV, benchGatewayConfigFile, chatTarget, createBenchKey, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { drive } from "./lib/load.ts";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const CONNECTIONS = 16;
const WARM_SECONDS = 3;
/** Bytes between samples: fine enough for requests that allocate tens of KiB. */
const SAMPLE_BYTES = 1024;
const TOP = 30;
const streamed = process.env.PROFILE_MODE === "streamed";

interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

/**
 * A DevTools protocol session over the inspector's WebSocket. Close it before the process ends:
 * a Node process with a debugger attached waits for it to disconnect before exiting.
 */
async function inspectorSession(url: string): Promise<{ send: (method: string, params?: object) => Promise<any>; close: () => void }> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  socket.onmessage = (message) => {
    const { id, result, error } = JSON.parse(String(message.data));
    const call = waiting.get(id);
    if (!call) return;
    waiting.delete(id);
    // Refused calls fail their caller, whose finally stops the gateway; a throw here would leave it running.
    if (error) call.reject(new Error(`inspector: ${JSON.stringify(error)}`));
    else call.resolve(result);
  };
  const send = (method: string, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

const upstream = await startWorker({ role: "upstream" });
const folder = mkdtempSync(join(tmpdir(), "gateway-allocations-"));
const configPath = join(folder, "config.json");
writeFileSync(configPath, JSON.stringify(benchGatewayConfigFile(upstream.url)));
const gateway = await startGatewayProcess({
  bootstrap: { ownerId: "bench" },
  args: ["--config", configPath, "--rate-limit", "1000000000", "--rate-burst", "1000000000"],
  env: { ...BENCH_UPSTREAM_ENV, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:0`.trim() },
});
let requests = 0;
let head: SamplingNode;
try {
  const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(gateway.output())?.[1];
  if (!inspectorUrl) throw new Error(`the gateway printed no inspector address:\n${gateway.output()}`);
  const session = await inspectorSession(inspectorUrl);
  const { send } = session;
  const secret = await createBenchKey(gateway.url, gateway.provisioningKey!, "bench");
  const target = chatTarget(`${gateway.url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, streamed);
  await drive(target, CONNECTIONS, WARM_SECONDS, streamed);
  await send("HeapProfiler.startSampling", { samplingInterval: SAMPLE_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  ({ requests } = await drive(target, CONNECTIONS, Number(process.env.PROFILE_SECONDS ?? 5), streamed));
  head = (await send("HeapProfiler.stopSampling")).profile.head;
  session.close();
} finally {
  await gateway.stop();
  await upstream.stop();
}

const self = new Map<string, number>();
const owners = new Map<string, number>();
let total = 0;
/** The first gateway frame up the stack names who asked for an allocation made inside a package or Node. */
const walk = (node: SamplingNode, gatewayCaller: string | undefined) => {
  const where = locate(node.callFrame, REPO_ROOT);
  const frame = `${node.callFrame.functionName || "(anonymous)"}  ${where}`;
  const caller = isGatewayCode(where) ? frame : gatewayCaller;
  if (node.selfSize > 0) {
    total += node.selfSize;
    self.set(frame, (self.get(frame) ?? 0) + node.selfSize);
    const owner = caller ?? "(outside any gateway frame)";
    owners.set(owner, (owners.get(owner) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, caller);
};
walk(head!, undefined);
const perRequest = (bytes: number) => `${(bytes / requests).toFixed(0).padStart(7)} B/req`;
const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP);
console.log(`load: ${streamed ? "streamed" : "whole"} chat at ${CONNECTIONS} connections, ${requests} requests; allocated ${perRequest(total)} (sampled every ${SAMPLE_BYTES} B, freed objects counted)`);
console.log(`\ntop ${TOP} allocating functions (self):`);
for (const [frame, bytes] of top(self)) console.log(`${perRequest(bytes)}  ${frame}`);
console.log(`\ntop ${TOP} by the nearest gateway frame up the stack (what the gateway's code asked for, inside packages included):`);
for (const [frame, bytes] of top(owners)) console.log(`${perRequest(bytes)}  ${frame}`);
