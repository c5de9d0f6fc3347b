/**
 * Resident memory per open stream, the gateway's beside the floor proxy's, in one run:
 * `bash scripts/run node bench/measure-open-streams.ts [streams] [prompt KiB]` (default 1000
 * streams of a one-word prompt). A prompt size sends a conversation of that many KiB in 16
 * messages, to show what each stream keeps of its request.
 */
import { measureOpenStreams } from "./lib/open-streams.ts";

const streams = Number(process.argv[2] ?? 1000);
const promptKiB = Number(process.argv[3] ?? 0);
const messages =
  promptKiB > 0
    ? Array.from({ length: 16 }, (_, turn) => ({ role: turn % 2 ? "assistant" : "user", content: `turn ${turn} ${"x".repeat(Math.round((promptKiB * 1024) / 16))}` }))
    : undefined;
for (const target of ["gateway", "floor"] as const) {
  const cell = await measureOpenStreams(streams, { ...(messages && { messages }) }, target);
  console.log(
    `${target.padEnd(8)} ${streams} streams${promptKiB > 0 ? ` of a ${promptKiB} KiB prompt` : ""}: ${cell.perStreamKiB.toFixed(1)} KiB per stream (baseline ${cell.baselineKiB} KiB, open ${cell.openKiB} KiB)`,
  );
}
