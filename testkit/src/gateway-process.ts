/**
 * The gateway as its own process, started through its CLI (`gateway serve`) the way it is deployed:
 * benchmarks use it so the gateway never shares an event loop with the engine's program, and tests
 * use it to signal or kill a real server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./repo-root.ts";

/** The gateway's CLI as built by `tsc -b`, for commands other than `serve` (e.g. `provisioning-key create`). */
export const GATEWAY_CLI = join(REPO_ROOT, "gateway/dist/cli.js");

/** The gateway prints its address (and bootstrap key) within a second; this long means it will not. */
const START_TIMEOUT_MS = 15_000;

/** Options of {@link startGatewayProcess}. */
export interface GatewayProcessOptions {
  /** The SQLite file. Default: a fresh one in a temporary folder that `stop()` removes. */
  dbPath?: string;
  /**
   * A PostgreSQL database to serve from instead of a SQLite file (then `dbPath` is ignored). It is
   * handed over in GATEWAY_DATABASE_URL, which keeps its password out of the process list.
   */
  databaseUrl?: string;
  /** Start with `--bootstrap --owner <ownerId>`, which creates a provisioning key and prints it once. Default: no key. */
  bootstrap?: { ownerId: string };
  /** More `gateway serve` options, e.g. `["--config", file, "--drain-timeout", "5"]`. */
  args?: readonly string[];
  /** Variables added to the process's environment (e.g. an upstream provider's key). */
  env?: Record<string, string>;
  /** A command the gateway's `node` runs under, e.g. `["valgrind", "--tool=callgrind"]` (bench/lib/instructions.ts). Default: none. */
  launcher?: readonly string[];
  /** Flags for `node` itself, before the gateway's script (V8 flags that NODE_OPTIONS refuses, such as `--predictable`). Default: none. */
  nodeFlags?: readonly string[];
  /** How long it may take to listen before it is killed. Default: 15 s (a launcher such as valgrind needs more). */
  startTimeoutMs?: number;
}

/** How a process ended: an exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A gateway running as a child process. */
export interface GatewayProcess {
  /** e.g. `http://127.0.0.1:41234`, no trailing slash. */
  url: string;
  /** The bootstrap provisioning key; `undefined` when started without `bootstrap`. */
  provisioningKey: string | undefined;
  /** The process itself, for tests that send it signals. */
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far, for tests that check what it prints. */
  output(): string;
  /** Resolves once the process has ended (at once if it already has). */
  exited(): Promise<ProcessExit>;
  /** Ends the process with SIGTERM unless it already ended, then removes its temporary folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts `gateway serve` on an ephemeral loopback port and waits until it listens. */
export async function startGatewayProcess(options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const { databaseUrl } = options;
  const tempDir = options.dbPath === undefined && databaseUrl === undefined ? await mkdtemp(join(tmpdir(), "gateway-process-")) : undefined;
  const databaseArgs = databaseUrl === undefined ? ["--db", options.dbPath ?? join(tempDir!, "gateway.db")] : [];
  const env = { ...options.env, ...(databaseUrl === undefined ? {} : { GATEWAY_DATABASE_URL: databaseUrl }) };
  const bootstrapArgs = options.bootstrap ? ["--bootstrap", "--owner", options.bootstrap.ownerId] : [];
  const [command, ...launcherArgs] = [...(options.launcher ?? []), process.execPath];
  const child = spawn(command!, [...launcherArgs, ...(options.nodeFlags ?? []), GATEWAY_CLI, "serve", "--port", "0", ...databaseArgs, "--log-level", "silent", ...bootstrapArgs, ...(options.args ?? [])], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  // Listened for from the start, so an exit is never missed.
  const exit = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  // Kept quiet, and shown only if the gateway fails to start (or asked for with output()).
  let errors = "";
  let printed = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exit;
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };

  let url = "";
  let provisioningKey: string | undefined;
  // Every line is kept for output(), those after the start lines too: the reader is never left
  // (leaving a readline loop drops what it had already read of the stream).
  const started = new Promise<void>((resolve) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      printed += `${line}\n`;
      url ||= /^gateway listening on (http:\/\/\S+)/.exec(line)?.[1] ?? "";
      provisioningKey ??= /^provisioning key for owner .*: (gwp_[0-9A-Za-z]+)$/.exec(line)?.[1];
      if (url && (provisioningKey || !options.bootstrap)) resolve();
    });
    // Its stdout closes when the process exits.
    lines.once("close", () => resolve());
  });
  const timeout = setTimeout(() => child.kill("SIGKILL"), options.startTimeoutMs ?? START_TIMEOUT_MS);
  try {
    await started;
  } finally {
    clearTimeout(timeout);
  }
  if (!url || (options.bootstrap && !provisioningKey)) {
    await stop();
    const { code, signal } = await exit;
    throw new Error(`the gateway process did not start (exit ${code ?? signal}):\n${errors}`);
  }
  return { url, provisioningKey, child, output: () => printed + errors, exited: () => exit, stop };
}
