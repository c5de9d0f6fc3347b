/**
 * The engine floor: wall time of `pulumi up` and `pulumi destroy` for N dynamic resources whose
 * provider does nothing. Every provider benchmark divides its own time by this floor, measured in
 * the same run, so the ratio shows what our code adds on top of the engine itself.
 *
 * Run: npm run bench -- engine-floor   (or: node bench/engine-floor.ts under Node >= 22)
 */
import * as pulumi from "@pulumi/pulumi";
import { EngineSandbox, destroy, up } from "@gateway-keys/testkit/engine";
import { median, printTable, timed } from "./lib/report.ts";

/** A provider that does no work: what is left is the engine's own cost per resource. */
const noopProvider: pulumi.dynamic.ResourceProvider = {
  async create() {
    return { id: crypto.randomUUID(), outs: {} };
  },
  async delete() {},
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string) {
    super(noopProvider, name, {}, {}, "bench", "Noop");
  }
}

export interface FloorTiming {
  resources: number;
  upMs: number;
  destroyMs: number;
}

/** Wall time of one `up` and one `destroy` of `count` no-op dynamic resources on a fresh stack. */
export async function engineFloorOnce(count: number): Promise<FloorTiming> {
  const sandbox = await EngineSandbox.create();
  try {
    const stack = await sandbox.inlineStack("engine-floor", async () => {
      for (let i = 0; i < count; i++) new Noop(`noop-${i}`);
    });
    const upMs = await timed(() => up(stack));
    const destroyMs = await timed(() => destroy(stack));
    return { resources: count, upMs, destroyMs };
  } finally {
    await sandbox.dispose();
  }
}

/** Median `up` and `destroy` wall time of `count` no-op dynamic resources over `runs` fresh stacks. */
export async function measureEngineFloor(count: number, runs: number): Promise<FloorTiming> {
  const timings: FloorTiming[] = [];
  for (let run = 0; run < runs; run++) timings.push(await engineFloorOnce(count));
  return { resources: count, upMs: median(timings.map((t) => t.upMs)), destroyMs: median(timings.map((t) => t.destroyMs)) };
}

export async function main(runs = 3): Promise<FloorTiming[]> {
  const timings = [await measureEngineFloor(10, runs), await measureEngineFloor(100, runs)];
  printTable(
    `engine floor: no-op dynamic resources, median of ${runs} runs`,
    timings.map((t) => ({
      resources: t.resources,
      "up (s)": (t.upMs / 1000).toFixed(2),
      "destroy (s)": (t.destroyMs / 1000).toFixed(2),
      "up per resource (ms)": (t.upMs / t.resources).toFixed(1),
    })),
  );
  return timings;
}

if (import.meta.main) await main();
