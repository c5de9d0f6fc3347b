/**
 * A throw-away PostgreSQL server for tests and benchmarks, started from the machine's own binaries:
 *
 *   const server = await startPostgres();   // initdb into a temp folder, listen on 127.0.0.1
 *   const url = await server.createDatabase(); // postgres://gateway:…@127.0.0.1:port/gw_…
 *   await server.stop();                     // stops it and removes every file it wrote
 *
 * The binaries are found in `PG_BIN`, else `/usr/lib/postgresql/<15…18>/bin`, else
 * `pg_config --bindir`. `initdb` and `postgres` refuse to run as root, so as root both run as the
 * `postgres` user (spawned with its uid and gid, no wrapper in between to swallow signals) in a
 * temp folder that user owns. The server listens on
 * 127.0.0.1 only, on a port picked free, with unix sockets off, and asks for a password (a random
 * one), so a URL is the whole credential, as it is in production.
 *
 * Only erasable TypeScript and package imports, so it also runs under Node's type stripping.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.ts";

/** A running throw-away server. */
export interface PostgresServer {
  /** URL of the server's `postgres` database as the superuser `gateway`, password included: keep it out of output. */
  url: string;
  port: number;
  /** Creates an empty database and returns its URL (same credentials as {@link url}). */
  createDatabase(name?: string): Promise<string>;
  /** Drops a database made by {@link createDatabase}, ending its connections first. */
  dropDatabase(url: string): Promise<void>;
  /**
   * Stops the server and keeps its files, as an operator's `pg_ctl stop -m fast` (sessions ended,
   * a clean shutdown) or `-m immediate` (every process killed at once, crash recovery at the next
   * start) would. Resolves once it has exited.
   */
  shutdown(mode: "fast" | "immediate"): Promise<void>;
  /** Starts the server again after {@link shutdown}, on the same port and data; resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown) and removes its data folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Extra `-c name=value` server settings. */
  settings?: Record<string, string>;
}

const POSTGRES_VERSIONS = ["18", "17", "16", "15"];
const START_TIMEOUT_MS = 30_000;
const USER = "gateway";

/**
 * Where the PostgreSQL server binaries are, or `undefined` with none on this machine (tests that
 * need a server then skip, saying so: see {@link postgresUnavailableReason}).
 */
export function findPostgresBinaries(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  for (const version of POSTGRES_VERSIONS) candidates.push(`/usr/lib/postgresql/${version}/bin`);
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    // no pg_config on PATH
  }
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres")));
}

/** Why {@link startPostgres} cannot run here, or `undefined` when it can. */
export function postgresUnavailableReason(): string | undefined {
  if (findPostgresBinaries() === undefined) {
    return "no PostgreSQL server binaries (initdb, postgres) in $PG_BIN, /usr/lib/postgresql/*/bin or `pg_config --bindir`; install postgresql-15 (scripts/setup does, as root)";
  }
  if (isRoot() && userId("postgres") === undefined) {
    return "running as root, and initdb refuses root, but there is no `postgres` user to run it as";
  }
  return undefined;
}

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

function userId(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** A port that was free a moment ago (PostgreSQL cannot listen on port 0 and tell which it got). */
/** Starts a fresh server; see the module comment. Throws with {@link postgresUnavailableReason} when it cannot. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const unavailable = postgresUnavailableReason();
  if (unavailable) throw new Error(`cannot start PostgreSQL: ${unavailable}`);
  const bin = findPostgresBinaries()!;
  // As root, run as `postgres` (Node drops root's supplementary groups with the uid).
  const owner = isRoot() ? userId("postgres")! : undefined;
  const identity = owner ? { uid: owner.uid, gid: owner.gid } : {};

  const root = mkdtempSync(join(tmpdir(), "gateway-pg-"));
  const dataDir = join(root, "data");
  const passwordFile = join(root, "password");
  const password = randomBytes(18).toString("base64url");
  let child: ChildProcess | undefined;
  const removeFiles = () => rmSync(root, { recursive: true, force: true });
  try {
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      chownSync(root, owner.uid, owner.gid);
      chownSync(passwordFile, owner.uid, owner.gid);
    }
    const initArgs = ["-D", dataDir, "-U", USER, `--pwfile=${passwordFile}`, "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"];
    execFileSync(join(bin, "initdb"), initArgs, { stdio: ["ignore", "ignore", "pipe"], cwd: root, ...identity });
    rmSync(passwordFile);

    // A throw-away cluster: no fsync (a test never survives the machine's crash), room for several
    // gateway processes' pools.
    const settings: Record<string, string> = {
      listen_addresses: "127.0.0.1",
      unix_socket_directories: "",
      fsync: "off",
      full_page_writes: "off",
      max_connections: "300",
      ...options.settings,
    };
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const args = ["-D", dataDir, "-p", String(port)];
      for (const [name, value] of Object.entries(settings)) args.push("-c", `${name}=${value}`);
      const launch = () => spawn(join(bin, "postgres"), args, { stdio: ["ignore", "ignore", "pipe"], cwd: root, ...identity });
      const started = launch();
      child = started;
      const outcome = await readiness(started);
      if (outcome === "ready") return serverAt(started, launch, port, password, removeFiles);
      // Someone took the port between our probe and the server's bind: try another one.
      if (outcome.includes("could not bind") && attempt < 5) continue;
      throw new Error(`PostgreSQL did not start: ${outcome.trim().split("\n").slice(-5).join("\n")}`);
    }
  } catch (error) {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    removeFiles();
    throw error;
  }
}

/** Waits for the server's "ready to accept connections" line: `"ready"`, or what it said before it ended. */
function readiness(child: ChildProcess): Promise<"ready" | string> {
  return new Promise((resolve) => {
    let output = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(`no readiness within ${START_TIMEOUT_MS} ms\n${output}`);
    }, START_TIMEOUT_MS);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        // Keep draining, so a chatty server never blocks on a full pipe.
        child.stderr!.removeAllListeners("data");
        child.stderr!.resume();
        resolve("ready");
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(output || "the server exited without a word");
    });
  });
}

/** Runs `work` on a connection to the server's `postgres` database (given any URL of the server). */
async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(serverUrl);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const DATABASE_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Creates an empty database on the server `serverUrl` points at (its credentials must allow it)
 * and returns its URL, with the same credentials.
 */
export async function createDatabase(serverUrl: string, name = `gw_${randomBytes(8).toString("hex")}`): Promise<string> {
  if (!DATABASE_NAME.test(name)) throw new Error(`database name ${JSON.stringify(name)}: use lower-case letters, digits and _`);
  // FILE_COPY: for a tiny template, copying its files beats WAL-logging every block (PostgreSQL 15's default).
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name} STRATEGY = FILE_COPY`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the database `databaseUrl` names, ending its connections first. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!DATABASE_NAME.test(name) || name === "postgres") throw new Error(`not a database made by createDatabase: ${name}`);
  await onServer(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Every value of every table in the database's `public` schema, as bytes (bytea as is, the rest as text). */
export async function postgresContents(databaseUrl: string): Promise<Buffer> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    const chunks: Buffer[] = [];
    for (const { name } of tables.rows) {
      const { rows } = await client.query<Record<string, unknown>>(`SELECT * FROM ${name}`);
      for (const row of rows) {
        for (const value of Object.values(row)) {
          if (value !== null) chunks.push(Buffer.isBuffer(value) ? value : Buffer.from(String(value)));
        }
      }
    }
    return Buffer.concat(chunks);
  } finally {
    await client.end();
  }
}

/** Whether `child` is still running. */
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Resolves once `child` has exited (at once if it has). */
const exitOf = (child: ChildProcess) => new Promise<void>((resolve) => (running(child) ? child.once("exit", () => resolve()) : resolve()));

/** The postmaster's shutdown signals: SIGINT is a fast shutdown (sessions ended), SIGQUIT an immediate one (no clean-up). */
const SHUTDOWN_SIGNAL = { fast: "SIGINT", immediate: "SIGQUIT" } as const;

function serverAt(first: ChildProcess, launch: () => ChildProcess, port: number, password: string, removeFiles: () => void): PostgresServer {
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let child = first;
  // A caller that never stops the server (a crashed test, a skipped teardown) must neither be kept
  // alive by it nor leave it running: the handles do not hold the event loop, and the server is
  // killed and its files removed when this process exits.
  const killAtExit = () => {
    if (running(child)) child.kill("SIGKILL");
    removeFiles();
  };
  const detach = (started: ChildProcess) => {
    started.unref();
    (started.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  };
  process.once("exit", killAtExit);
  detach(child);
  const halt = async (signal: NodeJS.Signals) => {
    const exited = exitOf(child);
    if (running(child)) child.kill(signal);
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  };
  let stopped = false;
  return {
    url,
    port,
    createDatabase: (name) => createDatabase(url, name),
    dropDatabase,
    shutdown: (mode) => halt(SHUTDOWN_SIGNAL[mode]),
    async restart() {
      if (stopped || running(child)) throw new Error("restart() is for a server stopped with shutdown()");
      child = launch();
      const outcome = await readiness(child);
      if (outcome !== "ready") throw new Error(`PostgreSQL did not start again: ${outcome.trim().split("\n").slice(-5).join("\n")}`);
      detach(child);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", killAtExit);
      await halt(SHUTDOWN_SIGNAL.fast);
      removeFiles();
    },
  };
}
