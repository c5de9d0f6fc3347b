/**
 * What the ApiKey provider costs on top of the engine, in one run:
 * - gateway requests per operation (targets: exactly 1 per create, update, rotate and revoke;
 *   0 for an `up` with no changes; at most N + 1 for a refresh of N keys);
 * - bytes of backend state per key (target <= 3 KB, read from the state file on disk);
 * - wall time of `up` for 100 keys divided by the engine floor for 100 no-op dynamic resources,
 *   measured in the same run (target <= 1.15), and divided by a no-op resource of ApiKey's own shape
 *   (bench/lib/shaped-noop.ts), which separates what our provider adds from what the engine charges
 *   for a resource with this many properties.
 *
 * Run: npm run bench -- provider
 */
import { ApiKey } from "@gateway-keys/provider";
import { destroy, EngineSandbox, refresh, startGatewayProcess, startRequestRecorder, storedResources, up, type RequestRecorder } from "@gateway-keys/testkit";
import { engineFloorOnce } from "./engine-floor.ts";
import { median, printTable, timed } from "./lib/report.ts";
import { ShapedNoop } from "./lib/shaped-noop.ts";

const KEYS = 100;

interface Knobs {
  limitOfFirstKey: string;
  triggerOfFirstKey: string;
}

/** A stack of `KEYS` keys; the first key's limit and trigger follow `knobs`, so one edit touches one key. */
async function keysStack(sandbox: EngineSandbox, baseUrl: string, provisioningKey: string, knobs: Knobs) {
  return sandbox.inlineStack(
    "bench-keys",
    async () => {
      for (let i = 0; i < KEYS; i++) {
        new ApiKey(`key-${i}`, {
          spendPolicy: { limitUnits: i === 0 ? knobs.limitOfFirstKey : "100" },
          rotationTrigger: i === 0 ? knobs.triggerOfFirstKey : "1",
        });
      }
    },
    { plain: { "gateway:baseUrl": baseUrl }, secret: { "gateway:provisioningKey": provisioningKey } },
  );
}

/** Requests the recorder saw during `work`, as "METHOD /path" with key ids folded. */
async function requestsDuring(recorder: RequestRecorder, work: () => Promise<unknown>): Promise<string[]> {
  recorder.reset();
  await work();
  return recorder.calls();
}

function verdict(ok: boolean): string {
  return ok ? "met" : "MISSED";
}

export async function main(runs = 5): Promise<void> {
  const gateway = await startGatewayProcess({ bootstrap: { ownerId: "bench" } });
  const provisioningKey = gateway.provisioningKey!;
  const recorder = await startRequestRecorder(gateway.url);
  try {
    // Request counts and state size, on one stack of KEYS keys.
    const sandbox = await EngineSandbox.create();
    const rows: Array<Record<string, string | number>> = [];
    let stateBytes: number[] = [];
    try {
      const knobs: Knobs = { limitOfFirstKey: "100", triggerOfFirstKey: "1" };
      const stack = await keysStack(sandbox, recorder.baseUrl, provisioningKey, knobs);
      const creates = await requestsDuring(recorder, () => up(stack));
      rows.push({ operation: `create ${KEYS} keys`, requests: creates.length, "per key": creates.length / KEYS, target: "1 per key", verdict: verdict(creates.length === KEYS) });
      stateBytes = (await storedResources(sandbox.backendDir))
        .filter((resource) => resource.type.endsWith("gateway:ApiKey"))
        .map((resource) => Buffer.byteLength(JSON.stringify(resource)));

      const unchanged = await requestsDuring(recorder, () => up(stack));
      rows.push({ operation: "up with no changes", requests: unchanged.length, "per key": 0, target: "0", verdict: verdict(unchanged.length === 0) });

      knobs.limitOfFirstKey = "250";
      const patches = await requestsDuring(recorder, () => up(stack));
      rows.push({ operation: "policy change of 1 key", requests: patches.length, "per key": patches.length, target: "1 PATCH", verdict: verdict(patches.join() === "PATCH /v1/account/api-keys/{id}") });

      knobs.triggerOfFirstKey = "2";
      const rotations = await requestsDuring(recorder, () => up(stack));
      rows.push({ operation: "rotation of 1 key", requests: rotations.length, "per key": rotations.length, target: "1 rotate", verdict: verdict(rotations.join() === "POST /v1/account/api-keys/{id}/rotate") });

      const reads = await requestsDuring(recorder, () => refresh(stack));
      rows.push({ operation: `refresh of ${KEYS} keys`, requests: reads.length, "per key": reads.length / KEYS, target: `<= ${KEYS + 1}`, verdict: verdict(reads.length <= KEYS + 1) });

      const revokes = await requestsDuring(recorder, () => destroy(stack));
      rows.push({ operation: `destroy ${KEYS} keys`, requests: revokes.length, "per key": revokes.length / KEYS, target: "1 per key", verdict: verdict(revokes.length === KEYS) });
    } finally {
      await sandbox.dispose();
    }
    printTable("gateway requests per operation", rows);
    const maxBytes = Math.max(...stateBytes);
    printTable("backend state per key (on disk, secrets encrypted)", [
      { keys: stateBytes.length, "median bytes": median(stateBytes), "max bytes": maxBytes, target: "<= 3072", verdict: verdict(maxBytes <= 3072) },
    ]);

    // Wall time: `up` of KEYS keys against the engine floor, interleaved so that both see the same
    // machine, after one unmeasured warm-up of each (module loading, first plugin start).
    const keysUpOnce = async () => {
      const runSandbox = await EngineSandbox.create();
      try {
        // Straight to the gateway: the recording proxy is for counting, not for timing.
        const stack = await keysStack(runSandbox, gateway.url, provisioningKey, { limitOfFirstKey: "100", triggerOfFirstKey: "1" });
        const ms = await timed(() => up(stack));
        await destroy(stack);
        return ms;
      } finally {
        await runSandbox.dispose();
      }
    };
    const shapedUpOnce = async () => {
      const runSandbox = await EngineSandbox.create();
      try {
        const stack = await runSandbox.inlineStack("bench-shaped", async () => {
          for (let i = 0; i < KEYS; i++) new ShapedNoop(`key-${i}`, "100", "1");
        });
        const ms = await timed(() => up(stack));
        await destroy(stack);
        return ms;
      } finally {
        await runSandbox.dispose();
      }
    };
    await engineFloorOnce(KEYS);
    await shapedUpOnce();
    await keysUpOnce();
    const floorUps: number[] = [];
    const shapedUps: number[] = [];
    const keyUps: number[] = [];
    for (let run = 0; run < runs; run++) {
      floorUps.push((await engineFloorOnce(KEYS)).upMs);
      shapedUps.push(await shapedUpOnce());
      keyUps.push(await keysUpOnce());
    }
    const floor = { upMs: median(floorUps) };
    const shapedUp = median(shapedUps);
    const keysUp = median(keyUps);
    const ratio = keysUp / floor.upMs;
    printTable(`up of ${KEYS} resources, median of ${runs} interleaved runs`, [
      { resources: `${KEYS} no-op dynamic (floor)`, "up (s)": (floor.upMs / 1000).toFixed(2), "vs floor": "1.00", "vs same-shape no-op": "", target: "", verdict: "" },
      {
        resources: `${KEYS} no-op of ApiKey's shape`,
        "up (s)": (shapedUp / 1000).toFixed(2),
        "vs floor": (shapedUp / floor.upMs).toFixed(2),
        "vs same-shape no-op": "1.00",
        target: "",
        verdict: "",
      },
      {
        resources: `${KEYS} ApiKey`,
        "up (s)": (keysUp / 1000).toFixed(2),
        "vs floor": ratio.toFixed(2),
        "vs same-shape no-op": (keysUp / shapedUp).toFixed(2),
        target: "<= 1.15 vs floor",
        verdict: verdict(ratio <= 1.15),
      },
    ]);
  } finally {
    await recorder.close();
    await gateway.stop();
  }
}

if (import.meta.main) await main();
