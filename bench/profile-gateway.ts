/**
 * Where a gateway process spends its time under the gateway bench's throughput load: whole Chat
 * Completions at 16 connections to the bench's upstream, with the bench's key (every policy on,
 * request and response logged, SQLite). The gateway runs as `gateway serve` in its own process
 * under `node --cpu-prof`; the upstream in a worker thread and the load generator here, as in
 * bench/gateway.ts. Only the samples taken while the measured load ran count (not start-up,
 * warm-up or shutdown). Prints the top functions by self and by inclusive time and the heaviest
 * call paths, each in µs per request, with gateway frames named by their TypeScript source line.
 *
 * Run: bash scripts/run node bench/profile-gateway.ts [folder]   (default /tmp/profiles; the
 * .cpuprofile stays there, for Chrome DevTools or speedscope; PROFILE_SECONDS, default 10;
 * PROFILE_MODE=streamed for streamed answers; PROFILE_CONNECTIONS, default 16; PROFILE_TEAM=1 for the
 * bench's key in a team with every team limit set, PROFILE_TEAM=spend in a team with a spend policy
 * only (bench/teams.ts measures their cost); PROFILE_RATE_POLICY=1 for the bench's key with a rate
 * limit policy, as the rate policy's cost is measured; PROFILE_TRACING=always_on, or any other
 * `OTEL_TRACES_SAMPLER` value, or `default` for the gateway's default sampling, exports spans over
 * OTLP to a receiver that keeps nothing, as bench/tracing.ts measures their cost)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startGatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { isGatewayCode, summariseProfile, type FunctionTime } from "./lib/cpu-profile.ts";
import { cpuSeconds, cpuSecondsByThread } from "./lib/process-cpu.ts";
import { BENCH_UPSTREAM_ENV, benchGatewayConfigFile, chatTarget, createBenchKey, createBenchTeam, MODEL, startWorker, UNREACHED_RATE_POLICY, UPSTREAM_MODEL } from "./lib/gateway-paths.ts";
import { drive, type Target } from "./lib/load.ts";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
/** `PROFILE_CONNECTIONS=1` profiles one connection at a time: the latency path rather than throughput. */
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 16);
const WARM_SECONDS = 3;
/** µs between samples: finer than the default 1000, for requests that take tens of µs of CPU. */
const SAMPLE_INTERVAL = 200;
const TOP = 25;

/** Who owns a frame's code: a gateway source file, a package, Node's own JavaScript, or native code (no file). */
function ownerOf(frame: string): string {
  const location = frame.split("  ")[1];
  if (location === undefined) return frame.startsWith("(") ? frame : "native (V8 builtins, syscalls, addons)";
  if (location.startsWith("node:")) return "node (its JavaScript)";
  if (isGatewayCode(location)) return location.replace(/:\d+$/, "");
  const parts = location.split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Self times summed by {@link ownerOf}. */
function byOwner(self: FunctionTime[]): FunctionTime[] {
  const owners = new Map<string, number>();
  for (const { frame, micros } of self) owners.set(ownerOf(frame), (owners.get(ownerOf(frame)) ?? 0) + micros);
  return [...owners].map(([frame, micros]) => ({ frame, micros })).sort((a, b) => b.micros - a.micros);
}

/** `PROFILE_MODE=streamed` profiles streamed answers instead (the bench's streamed cell at 16 connections). */
const streamed = process.env.PROFILE_MODE === "streamed";

/** The profile's load on `target`: {@link CONNECTIONS} connections, whole or streamed as `PROFILE_MODE` says. */
const driveProfiled = (target: Target, seconds: number) => drive(target, CONNECTIONS, seconds, streamed);

/**
 * The peer: the floor proxy (bench/lib/floor-proxy.ts) in a process of its own, unprofiled, under
 * the same load to the same upstream; returns its process's CPU per request (all threads).
 */
async function floorCpuPerRequest(upstreamUrl: string, seconds: number): Promise<number> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "lib/floor-proxy-process.ts"), upstreamUrl], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const [url] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
    const target = chatTarget(url, {}, UPSTREAM_MODEL, streamed);
    await driveProfiled(target, WARM_SECONDS);
    const before = cpuSeconds(child.pid!);
    const { requests } = await driveProfiled(target, seconds);
    return ((cpuSeconds(child.pid!) - before) * 1e6) / requests;
  } finally {
    child.kill();
    await once(child, "exit");
  }
}

const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

const folder = process.argv[2] ?? "/tmp/profiles";
const runFolder = join(folder, `gateway-${new Date().toISOString().replace(/[:.]/g, "-")}`);
mkdirSync(runFolder, { recursive: true });
const upstream = await startWorker({ role: "upstream" });
const tracing = process.env.PROFILE_TRACING;
const sink = tracing ? await startWorker({ role: "trace-sink" }) : undefined;
const configPath = join(runFolder, "config.json");
writeFileSync(configPath, JSON.stringify(benchGatewayConfigFile(upstream.url)));
const gateway = await startGatewayProcess({
  bootstrap: { ownerId: "bench" },
  args: ["--config", configPath, "--rate-limit", "1000000000", "--rate-burst", "1000000000", ...(sink ? ["--otel-endpoint", sink.url] : [])],
  env: {
    ...BENCH_UPSTREAM_ENV,
    ...(tracing && tracing !== "default" ? { OTEL_TRACES_SAMPLER: tracing } : {}),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${runFolder} --cpu-prof-interval=${SAMPLE_INTERVAL}`.trim(),
  },
});
let measured;
try {
  const profiledTeam = process.env.PROFILE_TEAM === "spend" ? "spend" : process.env.PROFILE_TEAM === "1" ? "full" : undefined;
  const team = profiledTeam ? { teamId: await createBenchTeam(gateway.url, gateway.provisioningKey!, profiledTeam) } : {};
  const secret = await createBenchKey(gateway.url, gateway.provisioningKey!, "bench", { ...(process.env.PROFILE_RATE_POLICY === "1" ? UNREACHED_RATE_POLICY : {}), ...team });
  const target = chatTarget(`${gateway.url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, streamed);
  await driveProfiled(target, WARM_SECONDS);
  const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
  const cpuBefore = cpuSeconds(gateway.child.pid!);
  const threadsBefore = cpuSecondsByThread(gateway.child.pid!);
  const from = nowMicros();
  const cell = await driveProfiled(target, seconds);
  const to = nowMicros();
  const threadsAfter = cpuSecondsByThread(gateway.child.pid!);
  const threads = [...threadsAfter].map(([name, after]) => ({ frame: name, micros: (after - (threadsBefore.get(name) ?? 0)) * 1e6 })).sort((a, b) => b.micros - a.micros);
  measured = { cell, from, to, cpuMicros: (cpuSeconds(gateway.child.pid!) - cpuBefore) * 1e6, threads };
} finally {
  // SIGTERM: the process exits on its own, and writes its profile as it does.
  await gateway.stop();
}
let floorMicrosPerRequest: number;
try {
  floorMicrosPerRequest = await floorCpuPerRequest(upstream.url, Number(process.env.PROFILE_SECONDS ?? 10));
} finally {
  await upstream.stop();
  await sink?.stop();
}

// One file per thread, CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile: thread 0 is the
// event loop; the others (e.g. SQLite's checkpointer) are left for DevTools.
const profileFile = readdirSync(runFolder)
  .filter((name) => name.endsWith(".cpuprofile") && name.split(".")[4] === "0")
  .map((name) => join(runFolder, name))[0];
if (!profileFile) throw new Error(`the gateway wrote no main-thread .cpuprofile into ${runFolder}`);
const { cell, from, to, cpuMicros, threads } = measured;
const { requests } = cell;
const summary = summariseProfile(profileFile, from, to, REPO_ROOT, "(root)");
const perRequest = (micros: number) => (micros / requests).toFixed(1).padStart(7);
const share = (micros: number) => `${((100 * micros) / (summary.windowMicros - summary.idleMicros)).toFixed(1).padStart(5)}%`;
const rows = (list: FunctionTime[]) => list.slice(0, TOP).map(({ frame, micros }) => `${perRequest(micros)} µs/req ${share(micros)}  ${frame}`);

console.log(`profile: ${profileFile}`);
console.log(
  `load: ${streamed ? "streamed" : "whole"} chat at ${CONNECTIONS} connections, ${Math.round(cell.perSecond)} answers/s, ${requests} requests, ${cell.errors} errors in ${((to - from) / 1e6).toFixed(1)} s; ` +
    `gateway process CPU ${(cpuMicros / requests).toFixed(1)} µs/req (all threads); main thread busy ${((summary.windowMicros - summary.idleMicros) / requests).toFixed(1)} µs/req, ` +
    `idle ${((100 * summary.idleMicros) / summary.windowMicros).toFixed(0)}% (percentages below are of busy time)`,
);
console.log(`the floor proxy's process under the same load, unprofiled: CPU ${floorMicrosPerRequest.toFixed(1)} µs/req (all threads)`);
console.log(`\nprocess CPU by thread (the profiler's own sampling thread included; 10 ms clock ticks):`);
for (const { frame, micros } of threads.filter(({ micros }) => micros > 0)) console.log(`${(micros / requests).toFixed(1).padStart(7)} µs/req  ${frame}`);
console.log(`\nmain thread's busy time by the gateway area that asked for it (nearest gateway frame on the stack; the packages and syscalls it called included):`);
for (const line of rows(summary.areas)) console.log(line);
console.log(`\ntop ${TOP} by self time:`);
for (const line of rows(summary.self.filter(({ frame }) => !frame.startsWith("(idle)")))) console.log(line);
console.log(`\nself time by where it is spent:`);
for (const line of rows(byOwner(summary.self.filter(({ frame }) => !frame.startsWith("(idle)"))))) console.log(line);
console.log(`\ntop ${TOP} by inclusive time (JavaScript frames):`);
for (const line of rows(summary.inclusive.filter(({ frame }) => !frame.startsWith("(")))) console.log(line);
console.log(`\ntop ${TOP} gateway functions by inclusive time (each async step of a request is its own stack):`);
for (const line of rows(summary.inclusive.filter(({ frame }) => frame.includes("  gateway/src/")))) console.log(line);
console.log(`\nheaviest call paths (inclusive, ≥ 1% of the window):`);
for (const { depth, frame, micros } of summary.tree) console.log(`${perRequest(micros)} µs/req ${"  ".repeat(depth)}${frame}`);
