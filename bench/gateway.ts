/**
 * What the gateway adds in front of a model server: Chat Completions, whole and streamed, at 1 and
 * 16 connections, on these paths to the same upstream (bench/lib/chat-upstream.ts), in one run:
 *   bare     client → upstream
 *   floor    client → the least a Node proxy does (bench/lib/floor-proxy.ts) → upstream: the bound
 *            any gateway on this machine is measured against, since a proxied request makes two
 *            loopback hops where a bare one makes one
 *   gateway  client → our gateway → upstream: a configured `openai` provider, with key auth, rate
 *            limit, model policy, spend reservation and settlement, and a log row storing request
 *            and response on a SQLite file — everything on, as deployed (bench/lib/gateway-paths.ts)
 *   portkey  client → Portkey's open-source gateway (pass-through, no auth) → upstream; whole
 *            answers only (its streaming fails on Node; the run checks and says so)
 * Upstream, floor and gateway each run in their own worker thread, Portkey in its own process, the
 * load generator on the main thread: on a 2-core machine they all share two cores.
 *
 * Also the cost of a key's rate limit policy (issue: key policies): whole answers at 16 connections
 * with two keys of the same gateway, one without a rate policy and one with every limit set (none
 * ever reached).
 *
 * Every path is warmed up first; then the cells (each path, mode and connection count, and the
 * two rate policy keys) take turns, round after round, so a slower spell of this shared machine
 * falls on all of them rather than on one; each figure is a median over the rounds, and each ratio
 * the median of the rounds' ratios (both sides measured in the same round).
 *
 * Last, the resident memory a gateway process holds per open stream (bench/lib/open-streams.ts).
 *
 * Run: npm run bench -- gateway        (BENCH_SECONDS=N per cell, default 5; BENCH_ROUNDS, default 3)
 * Targets (issue 26): whole chat at 16 connections ≥ 0.8 of the floor's throughput; streamed ≥ 0.9;
 * added p50 at 1 connection (a path's p50 less the bare upstream's, whole answers) ≤ 1.5 × the
 * floor's; ≤ 64 KiB resident per open stream at 1,000; a rate limit policy costs < 5% of throughput.
 */
import { startPortkey } from "./lib/portkey.ts";
import { chatTarget, MODEL, startWorker, UPSTREAM_MODEL } from "./lib/gateway-paths.ts";
import { loadStreams, loadWhole, type StreamCell, type Target, type WholeCell } from "./lib/load.ts";
import { measureOpenStreams, type OpenStreamsCell } from "./lib/open-streams.ts";
import { median, printTable } from "./lib/report.ts";

const LEVELS = [1, 16] as const;
const WHOLE_PATHS = ["bare", "floor", "gateway", "portkey"] as const;
const STREAM_PATHS = ["bare", "floor", "gateway"] as const;
type WholePath = (typeof WHOLE_PATHS)[number];
type StreamPath = (typeof STREAM_PATHS)[number];
/** Load on every path before any round, so each runs optimised code (V8 compiles hot functions after thousands of calls). */
const WARM_SECONDS = 2;

/** One cell of one round. */
interface Measured<Path, Cell> {
  round: number;
  connections: number;
  path: Path;
  cell: Cell;
}

/** One round of the rate policy's cost: the same load on the key without and the key with a rate policy. */
export interface RateCostRound {
  plain: WholeCell;
  limited: WholeCell;
}

export interface GatewayBench {
  rounds: number;
  whole: Measured<WholePath, WholeCell>[];
  streams: Measured<StreamPath, StreamCell>[];
  rateCost: RateCostRound[];
  portkeyStreaming: string | undefined;
}

/** Whether a stream through `target` arrives whole: Portkey's is checked, not assumed. */
async function streamWorks(target: Target): Promise<string | undefined> {
  try {
    const response = await fetch(target.origin + target.path, { method: "POST", headers: { "content-type": "application/json", ...target.headers }, body: target.body });
    const text = await response.text();
    if (response.status !== 200) return `answered ${response.status}`;
    if (!text.includes("data: [DONE]")) return "the stream did not end with [DONE]";
    return undefined;
  } catch (error) {
    return String(error);
  }
}

/** `list` starting at its `by`-th element: each round starts with another path, so none is always measured first. */
const rotated = <T>(list: readonly T[], by: number): T[] => list.map((_, at) => list[(at + by) % list.length]!);

export async function benchGateway(seconds: number, rounds: number): Promise<GatewayBench> {
  const upstream = await startWorker({ role: "upstream" });
  const floor = await startWorker({ role: "floor", upstreamUrl: upstream.url });
  const gateway = await startWorker({ role: "gateway", upstreamUrl: upstream.url });
  const portkey = await startPortkey();
  const targets = (stream: boolean): Record<WholePath, Target> => ({
    bare: chatTarget(upstream.url, {}, UPSTREAM_MODEL, stream),
    floor: chatTarget(floor.url, {}, UPSTREAM_MODEL, stream),
    gateway: chatTarget(gateway.url, { authorization: `Bearer ${gateway.secret}` }, MODEL, stream),
    portkey: chatTarget(`${portkey.origin}/v1`, portkey.headersFor(upstream.url), UPSTREAM_MODEL, stream),
  });
  const whole = targets(false);
  const streamed = targets(true);
  const limited = chatTarget(gateway.url, { authorization: `Bearer ${gateway.limitedSecret}` }, MODEL, false);
  const result: GatewayBench = { rounds, whole: [], streams: [], rateCost: [], portkeyStreaming: undefined };
  try {
    result.portkeyStreaming = await streamWorks(streamed.portkey);
    // JIT, connection pools and SQLite's page cache warm on every path before anything counts.
    for (const path of WHOLE_PATHS) await loadWhole(whole[path], 16, WARM_SECONDS);
    for (const path of STREAM_PATHS) await loadStreams(streamed[path], 16, WARM_SECONDS);
    await loadWhole(limited, 16, WARM_SECONDS);
    for (let round = 0; round < rounds; round++) {
      for (const connections of LEVELS) {
        for (const path of rotated(WHOLE_PATHS, round)) {
          result.whole.push({ round, connections, path, cell: await loadWhole(whole[path], connections, seconds) });
        }
        for (const path of rotated(STREAM_PATHS, round)) {
          result.streams.push({ round, connections, path, cell: await loadStreams(streamed[path], connections, seconds) });
        }
      }
      // Which key goes first alternates too.
      if (round % 2 === 0) {
        const plain = await loadWhole(whole.gateway, 16, seconds);
        result.rateCost.push({ plain, limited: await loadWhole(limited, 16, seconds) });
      } else {
        const limitedCell = await loadWhole(limited, 16, seconds);
        result.rateCost.push({ plain: await loadWhole(whole.gateway, 16, seconds), limited: limitedCell });
      }
    }
    return result;
  } finally {
    await portkey.stop();
    await gateway.stop();
    await floor.stop();
    await upstream.stop();
  }
}

/** A path's cells at one connection count, in round order. */
function cellsOf<Path, Cell>(measured: readonly Measured<Path, Cell>[], connections: number, path: Path): Cell[] {
  return measured.filter((entry) => entry.connections === connections && entry.path === path).map((entry) => entry.cell);
}

/** Per round, `compare` of one path's cell with another's from the same round. */
function perRound<Cell>(ofPath: Cell[], ofOther: Cell[], compare: (cell: Cell, other: Cell) => number): number[] {
  return ofPath.map((cell, round) => compare(cell, ofOther[round]!));
}

const ms = (value: number) => value.toFixed(3);
const pair = (p50: number, p99: number) => `${ms(p50)} / ${ms(p99)}`;
const listed = (values: readonly number[], digits = 2) => values.map((value) => value.toFixed(digits)).join(", ");
const verdict = (met: boolean) => (met ? "met" : "NOT met");

export async function main(): Promise<GatewayBench> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const bench = await benchGateway(seconds, rounds);
  const medians = `medians of ${rounds} rounds of ${seconds} s per cell`;

  const whole = (connections: number, path: WholePath) => cellsOf(bench.whole, connections, path);
  const wholeRatio = (connections: number, path: WholePath, over: WholePath) =>
    median(perRound(whole(connections, path), whole(connections, over), (cell, other) => cell.requestsPerSecond / other.requestsPerSecond));
  /** Per round, a percentile of a path's latency less the bare upstream's. */
  const wholeAdded = (connections: number, path: WholePath, pick: (cell: WholeCell) => number) =>
    perRound(whole(connections, path), whole(connections, "bare"), (cell, bare) => pick(cell) - pick(bare));
  printTable(
    `gateway: whole Chat Completions, client → path → the same upstream (loopback; ${medians}; latencies in ms, p50 / p99)`,
    LEVELS.flatMap((connections) =>
      WHOLE_PATHS.map((path) => {
        const cells = whole(connections, path);
        return {
          connections,
          path,
          "req/s": Math.round(median(cells.map((cell) => cell.requestsPerSecond))),
          "vs bare": wholeRatio(connections, path, "bare").toFixed(2),
          "vs floor": wholeRatio(connections, path, "floor").toFixed(2),
          latency: pair(median(cells.map((cell) => cell.p50)), median(cells.map((cell) => cell.p99))),
          added: path === "bare" ? "" : pair(median(wholeAdded(connections, path, (cell) => cell.p50)), median(wholeAdded(connections, path, (cell) => cell.p99))),
          errors: cells.reduce((sum, cell) => sum + cell.errors, 0),
        };
      }),
    ),
  );

  const streams = (connections: number, path: StreamPath) => cellsOf(bench.streams, connections, path);
  const streamRatio = (connections: number, path: StreamPath, over: StreamPath) =>
    median(perRound(streams(connections, path), streams(connections, over), (cell, other) => cell.requestsPerSecond / other.requestsPerSecond));
  const streamAdded = (connections: number, path: StreamPath, pick: (cell: StreamCell) => number) =>
    median(perRound(streams(connections, path), streams(connections, "bare"), (cell, bare) => pick(cell) - pick(bare)));
  printTable(
    `gateway: streamed Chat Completions (${medians}; time to first and last byte in ms, p50 / p99)`,
    LEVELS.flatMap((connections) =>
      STREAM_PATHS.map((path) => {
        const cells = streams(connections, path);
        const of = (pick: (cell: StreamCell) => number) => median(cells.map(pick));
        return {
          connections,
          path,
          "streams/s": Math.round(of((cell) => cell.requestsPerSecond)),
          "vs bare": streamRatio(connections, path, "bare").toFixed(2),
          "vs floor": streamRatio(connections, path, "floor").toFixed(2),
          "first byte": pair(of((cell) => cell.ttfbP50), of((cell) => cell.ttfbP99)),
          "added first": path === "bare" ? "" : pair(streamAdded(connections, path, (cell) => cell.ttfbP50), streamAdded(connections, path, (cell) => cell.ttfbP99)),
          "last byte": pair(of((cell) => cell.ttlbP50), of((cell) => cell.ttlbP99)),
          "added last": path === "bare" ? "" : pair(streamAdded(connections, path, (cell) => cell.ttlbP50), streamAdded(connections, path, (cell) => cell.ttlbP99)),
          errors: cells.reduce((sum, cell) => sum + cell.errors, 0),
        };
      }),
    ),
  );
  console.log(`portkey streaming: ${bench.portkeyStreaming === undefined ? "works (not measured)" : `not measured: ${bench.portkeyStreaming}`}`);

  printTable(
    `gateway: a key's rate limit policy (every limit set, none reached) against none, whole answers at 16 connections, alternated (${seconds} s per cell)`,
    bench.rateCost.map(({ plain, limited }, round) => ({
      round: round + 1,
      "no policy req/s": Math.round(plain.requestsPerSecond),
      "rate policy req/s": Math.round(limited.requestsPerSecond),
      ratio: (limited.requestsPerSecond / plain.requestsPerSecond).toFixed(3),
      "p50 no policy / policy": `${ms(plain.p50)} / ${ms(limited.p50)}`,
      errors: plain.errors + limited.errors,
    })),
  );

  const memory = [await measureOpenStreams(1000), await measureOpenStreams(2000)];
  const floorMemory = await measureOpenStreams(1000, {}, "floor");
  printTable(
    "gateway: resident memory of a process holding open streams (relayed, first event sent); the floor proxy as the peer",
    [...memory.map((cell) => ({ process: "gateway", ...memoryRow(cell) })), { process: "floor", ...memoryRow(floorMemory) }],
  );
  console.log(`memory: the gateway holds ${(memory[0]!.perStreamKiB / floorMemory.perStreamKiB).toFixed(2)}× what the floor proxy holds per stream at 1000`);
  const marginal = (memory[1]!.openKiB - memory[0]!.openKiB) / (memory[1]!.streams - memory[0]!.streams);
  console.log(`memory: ${marginal.toFixed(1)} KiB per stream between ${memory[0]!.streams} and ${memory[1]!.streams} open (the growth that scales with streams)`);

  printTable(`gateway: targets (issue 26; ${medians})`, targetRows(bench, memory[0]!.perStreamKiB));
  return bench;
}

function memoryRow(cell: OpenStreamsCell): Record<string, string | number> {
  return { streams: cell.streams, "baseline MiB": (cell.baselineKiB / 1024).toFixed(1), "open MiB": (cell.openKiB / 1024).toFixed(1), "KiB per stream": cell.perStreamKiB.toFixed(1) };
}

/** Each target with what was measured, its bound, the rounds it came from and its verdict. */
function targetRows(bench: GatewayBench, perStreamKiB: number): Record<string, string>[] {
  const throughputRatio = <Cell extends { requestsPerSecond: number }>(gateway: Cell[], floor: Cell[]) =>
    perRound(gateway, floor, (cell, other) => cell.requestsPerSecond / other.requestsPerSecond);
  const wholeAt16 = throughputRatio(cellsOf(bench.whole, 16, "gateway"), cellsOf(bench.whole, 16, "floor"));
  const streamedAt16 = throughputRatio(cellsOf(bench.streams, 16, "gateway"), cellsOf(bench.streams, 16, "floor"));
  // "Added": a path's p50 less the bare upstream's in the same round, whole answers at 1 connection.
  const bare = cellsOf(bench.whole, 1, "bare");
  const added = (path: WholePath) => perRound(cellsOf(bench.whole, 1, path), bare, (cell, bareCell) => cell.p50 - bareCell.p50);
  const gatewayAdded = added("gateway");
  const floorAdded = added("floor");
  // The medians' quotient: a round's floor adds a few hundredths of a millisecond, too little to divide by alone.
  const addedTimes = median(gatewayAdded) / median(floorAdded);
  const sum = (cells: WholeCell[]) => cells.reduce((total, cell) => total + cell.requestsPerSecond, 0);
  const rateCostShare = 1 - sum(bench.rateCost.map((round) => round.limited)) / sum(bench.rateCost.map((round) => round.plain));
  return [
    {
      target: "whole chat at 16 connections, gateway's req/s over the floor's",
      measured: median(wholeAt16).toFixed(2),
      bound: "≥ 0.8",
      rounds: listed(wholeAt16),
      verdict: verdict(median(wholeAt16) >= 0.8),
    },
    {
      target: "streamed chat at 16 connections, gateway's streams/s over the floor's",
      measured: median(streamedAt16).toFixed(2),
      bound: "≥ 0.9",
      rounds: listed(streamedAt16),
      verdict: verdict(median(streamedAt16) >= 0.9),
    },
    {
      target: "added p50 at 1 connection (whole), gateway's over the floor's",
      measured: `${addedTimes.toFixed(2)} × (${ms(median(gatewayAdded))} / ${ms(median(floorAdded))} ms)`,
      bound: "≤ 1.5 ×",
      rounds: `gateway ${listed(gatewayAdded, 3)}; floor ${listed(floorAdded, 3)} ms`,
      verdict: verdict(addedTimes <= 1.5),
    },
    {
      target: "resident memory per open stream at 1,000 open",
      measured: `${perStreamKiB.toFixed(1)} KiB`,
      bound: "≤ 64 KiB",
      rounds: "one measurement",
      verdict: verdict(perStreamKiB <= 64),
    },
    {
      target: "a key's rate limit policy, share of throughput lost (whole, 16 connections)",
      measured: `${(rateCostShare * 100).toFixed(1)}%`,
      bound: "< 5%",
      rounds: listed(bench.rateCost.map(({ plain, limited }) => limited.requestsPerSecond / plain.requestsPerSecond), 3),
      verdict: verdict(rateCostShare < 0.05),
    },
  ];
}

if (import.meta.main) await main();
