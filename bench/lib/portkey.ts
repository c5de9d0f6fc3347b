/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, pinned in bench/peers), the peer the
 * gateway benchmark compares against: installed on first use, run as its own Node process in
 * pass-through mode (no auth, no config: the provider and the upstream's address ride on headers).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PEERS = fileURLToPath(new URL("../peers/", import.meta.url));
const ENTRY = join(PEERS, "node_modules/@portkey-ai/gateway/build/start-server.js");

/** A port free right now (Portkey takes a port number, not 0). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface RunningPortkey {
  origin: string;
  /** The headers that route a request through it to `upstreamUrl` (an OpenAI-wire base URL). */
  headersFor(upstreamUrl: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Installs (once, from the lockfile) and starts Portkey; resolves once it answers. */
export async function startPortkey(): Promise<RunningPortkey> {
  if (!existsSync(ENTRY)) {
    console.log("installing @portkey-ai/gateway into bench/peers (once) ...");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", PEERS], { stdio: ["ignore", "ignore", "inherit"] });
  }
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [ENTRY, `--port=${port}`, "--headless"], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Portkey exited with code ${child.exitCode} before it answered`);
    try {
      await fetch(origin);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("Portkey did not answer within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    origin,
    headersFor: (upstreamUrl) => ({ authorization: "Bearer sk-bench-unused", "x-portkey-provider": "openai", "x-portkey-custom-host": upstreamUrl }),
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
