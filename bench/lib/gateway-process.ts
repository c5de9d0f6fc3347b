import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A gateway running as its own process, the way it is deployed, so it never shares a CPU's event loop with the engine's program. */
export interface GatewayProcess {
  url: string;
  provisioningKey: string;
  stop(): Promise<void>;
}

/** Starts `gateway serve --bootstrap` on an ephemeral loopback port with a fresh database. */
export async function startGatewayProcess(ownerId = "bench"): Promise<GatewayProcess> {
  const dir = await mkdtemp(join(tmpdir(), "gateway-bench-"));
  const child: ChildProcess = spawn(
    process.execPath,
    ["gateway/dist/cli.js", "serve", "--port", "0", "--db", join(dir, "gateway.db"), "--bootstrap", "--owner", ownerId, "--log-level", "silent"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  // Kept quiet, and shown only if the gateway fails to start.
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  let url = "";
  let provisioningKey = "";
  // The gateway prints its address and key within a second; ten means it will not.
  const timeout = setTimeout(() => child.kill("SIGKILL"), 10_000);
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      url ||= /gateway listening on (http:\/\/\S+)/.exec(line)?.[1] ?? "";
      provisioningKey ||= /(gwp_[A-Za-z0-9]+)/.exec(line)?.[1] ?? "";
      if (url && provisioningKey) break;
    }
  } finally {
    clearTimeout(timeout);
  }
  if (!url || !provisioningKey) {
    await stop();
    throw new Error(`the gateway process did not start:\n${errors}`);
  }
  child.stdout!.resume();
  return { url, provisioningKey, stop };
}
