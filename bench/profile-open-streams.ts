/**
 * What an open stream keeps alive in a gateway process: the open-streams setup of bench/gateway.ts
 * (bench/lib/open-streams.ts), with a V8 heap snapshot taken at each reading (the baseline, then
 * with N more streams open, relayed and waiting), and the objects that grew between the two, per
 * stream, by kind. Set the JS heap's growth against bench/gateway's resident figure: the rest is
 * memory outside the JS heap (sockets, HTTP parsers, buffers' backing stores, the allocator's and
 * V8's slack). Taking a snapshot itself raises the resident set, so this run's own is not that figure.
 *
 * Run: bash scripts/run node bench/profile-open-streams.ts [folder] [streams] [gateway|floor]
 * (default /tmp/profiles, 1000 and the gateway; the snapshots stay there, for Chrome DevTools'
 * Memory tab). `floor` profiles the floor proxy the same way, the peer to set the gateway against.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { countByKind, growth } from "./lib/heap-snapshot.ts";
import { measureOpenStreams } from "./lib/open-streams.ts";

const TOP = 30;
const folder = process.argv[2] ?? "/tmp/profiles";
const streams = Number(process.argv[3] ?? 1000);
const target = process.argv[4] === "floor" ? "floor" : "gateway";
const runFolder = join(folder, `open-streams-${new Date().toISOString().replace(/[:.]/g, "-")}`);
mkdirSync(runFolder, { recursive: true });

const snapshots: string[] = [];
const heapFiles = () => readdirSync(runFolder).filter((name) => name.endsWith(".heapsnapshot"));

/** Asks the process for a snapshot and waits until its file is complete (it stops growing). */
async function snapshot(pid: number): Promise<void> {
  const before = new Set(heapFiles());
  process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + 120_000;
  let file: string | undefined;
  let size = -1;
  for (;;) {
    if (Date.now() > deadline) throw new Error("no complete heap snapshot within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    file ??= heapFiles().find((name) => !before.has(name));
    if (!file || !existsSync(join(runFolder, file))) continue;
    const now = statSync(join(runFolder, file)).size;
    if (now > 0 && now === size) break;
    size = now;
  }
  snapshots.push(join(runFolder, file));
}

const cell = await measureOpenStreams(streams, {
  env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${runFolder}`.trim() },
  atReading: (pid) => snapshot(pid),
}, target);
const [baseline, open] = snapshots.map(countByKind) as [ReturnType<typeof countByKind>, ReturnType<typeof countByKind>];
const total = (kinds: ReturnType<typeof countByKind>) => [...kinds.values()].reduce((sum, kind) => sum + kind.bytes, 0);
const heapGrowthKiB = (total(open) - total(baseline)) / 1024;
console.log(`snapshots: ${snapshots.join(", ")}`);
console.log(
  `${streams} streams: JS heap (live objects' self sizes) grew ${(heapGrowthKiB / streams).toFixed(1)} KiB per stream; ` +
    `resident ${cell.perStreamKiB.toFixed(1)} KiB per stream here, raised by the baseline snapshot's own memory (bench/gateway's figure, without snapshots, is the one to compare)`,
);
console.log(`\ntop ${TOP} kinds by growth, per open stream (objects, bytes):`);
for (const { kind, count, bytes } of growth(baseline, open).slice(0, TOP)) {
  console.log(`${(count / streams).toFixed(2).padStart(8)} objs ${(bytes / streams).toFixed(0).padStart(7)} B  ${kind}`);
}
