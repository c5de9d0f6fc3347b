/**
 * Resident memory per open stream, the gateway's beside the floor proxy's, in one run:
 * `bash scripts/run node bench/measure-open-streams.ts [streams]` (default 1000).
 */
import { measureOpenStreams } from "./lib/open-streams.ts";

const streams = Number(process.argv[2] ?? 1000);
for (const target of ["gateway", "floor"] as const) {
  const cell = await measureOpenStreams(streams, {}, target);
  console.log(`${target.padEnd(8)} ${streams} streams: ${cell.perStreamKiB.toFixed(1)} KiB per stream (baseline ${cell.baselineKiB} KiB, open ${cell.openKiB} KiB)`);
}
