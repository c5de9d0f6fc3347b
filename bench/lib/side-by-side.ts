/**
 * Gateways measured side by side: every variant loaded at the same time, round after round, so
 * whatever else the machine runs during a round falls on all of them alike (gateways measured one
 * after another each meet a different spell of a shared machine). A `control` variant configured
 * exactly as the baseline shows the measurement's own noise and bias: its ratio to the baseline
 * should read 1.000, and a variant's ratio is read against it. Beside throughput, each gateway
 * thread's own CPU time per request (from /proc), which moves much less with what else runs.
 */
import { cpus, loadavg } from "node:os";
import { chatTarget, MODEL, type Ready } from "./gateway-paths.ts";
import { loadWhole, type Target, type WholeCell } from "./load.ts";
import { threadCpuSeconds } from "./process-cpu.ts";
import { median, printTable } from "./report.ts";

/**
 * One gateway's figures in one round, with its thread's (or process's) CPU microseconds per answered
 * request, and its event loop's alone when the variant names that thread's `stat` file.
 */
export type SideCell = WholeCell & { cpuMicrosPerRequest: number; eventLoopCpuMicrosPerRequest?: number };

/** A gateway under measurement: what to load and the `stat` file whose CPU time is its own (its worker thread's, or its process's). */
export interface SideVariant {
  target: Target;
  threadStat: string;
  /** For a gateway process measured whole: its event loop thread's `stat` file (`/proc/<pid>/task/<pid>/stat`), its share of the CPU. */
  eventLoopStat?: string;
}

/**
 * Loads every variant at once with `connections` each for `seconds`, `rounds` times after a warm-up
 * round; returns each round's cells by variant.
 */
export async function measureSideBySide<Name extends string>(
  variants: Record<Name, SideVariant>,
  options: { rounds: number; seconds: number; warmSeconds: number; connections: number },
): Promise<Record<Name, SideCell>[]> {
  const names = Object.keys(variants) as Name[];
  const round = async (seconds: number): Promise<Record<Name, SideCell>> => {
    const eventLoopSeconds = (name: Name) => {
      const stat = variants[name].eventLoopStat;
      return stat === undefined ? 0 : threadCpuSeconds(stat);
    };
    const cpuBefore = names.map((name) => threadCpuSeconds(variants[name].threadStat));
    const eventLoopBefore = names.map(eventLoopSeconds);
    const cells = await Promise.all(names.map((name) => loadWhole(variants[name].target, options.connections, seconds)));
    return Object.fromEntries(
      names.map((name, i) => {
        const answers = Math.max(1, cells[i]!.latencies.length);
        const cpu = threadCpuSeconds(variants[name].threadStat) - cpuBefore[i]!;
        const eventLoop = variants[name].eventLoopStat === undefined ? {} : { eventLoopCpuMicrosPerRequest: ((eventLoopSeconds(name) - eventLoopBefore[i]!) * 1e6) / answers };
        return [name, { ...cells[i]!, cpuMicrosPerRequest: (cpu * 1e6) / answers, ...eventLoop }];
      }),
    ) as Record<Name, SideCell>;
  };
  await round(options.warmSeconds);
  const rounds: Record<Name, SideCell>[] = [];
  for (let i = 0; i < options.rounds; i++) rounds.push(await round(options.seconds));
  return rounds;
}

/** The median over the rounds of `variant`'s figure divided by `baseline`'s in the same round. */
export function medianRatio<Name extends string>(rounds: readonly Record<Name, SideCell>[], variant: Name, baseline: Name, figure: (cell: SideCell) => number): number {
  return median(rounds.map((cells) => figure(cells[variant]) / figure(cells[baseline])));
}

/** Errors (failed requests and non-2xx answers) over every round and variant. */
export function errorsOf<Name extends string>(rounds: readonly Record<Name, SideCell>[]): number {
  return rounds.reduce((sum, cells) => sum + Object.values<SideCell>(cells).reduce((cellSum, cell) => cellSum + cell.errors, 0), 0);
}

export const requestsPerSecond = (cell: SideCell) => cell.requestsPerSecond;
export const cpuPerRequest = (cell: SideCell) => cell.cpuMicrosPerRequest;
export const eventLoopCpuPerRequest = (cell: SideCell) => cell.eventLoopCpuMicrosPerRequest ?? Number.NaN;

/** Whole chat with each bench gateway's own key: the variants of gateways started by bench/lib/gateway-paths.ts. */
export function wholeChatVariants<Name extends string>(gateways: Record<Name, Ready>): Record<Name, SideVariant> {
  return Object.fromEntries(
    (Object.keys(gateways) as Name[]).map((name) => [
      name,
      { target: chatTarget(gateways[name].url, { authorization: `Bearer ${gateways[name].secret}` }, MODEL, false), threadStat: gateways[name].threadStat! },
    ]),
  ) as Record<Name, SideVariant>;
}

/** The machine's load while measuring, then each round's requests per second and CPU per request, by variant. */
export function printRounds<Name extends string>(title: string, rounds: readonly Record<Name, SideCell>[]): void {
  const names = Object.keys(rounds[0] ?? {}) as Name[];
  console.log(`load average while measuring (1, 5, 15 min): ${loadavg().map((load) => load.toFixed(1)).join(", ")} on ${cpus().length} cores`);
  printTable(
    `${title} (requests/s)`,
    rounds.map((cells, i) => ({
      round: i + 1,
      ...Object.fromEntries(names.map((name) => [name, cells[name].requestsPerSecond.toFixed(0)])),
      "CPU µs/req (same order)": names.map((name) => cells[name].cpuMicrosPerRequest.toFixed(0)).join(" · "),
    })),
  );
}
