/**
 * `gateway serve` configured by environment, as the image, the compose file and the chart do it:
 * GATEWAY_HOST, GATEWAY_PORT, GATEWAY_METRICS_PORT, GATEWAY_CONFIG, GATEWAY_LOG_LEVEL,
 * GATEWAY_DRAIN_TIMEOUT and GATEWAY_ENCRYPTION_KEY_FILE (the key read from a mounted file). A flag on
 * the command line wins over its variable; a bad key file stops the start with what is wrong.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";
import { SLOW_KEY_ENV, SLOW_MODEL, slowConfig, startSlowUpstream, type SlowUpstream } from "../gateway/ops-support";
import { freePort } from "./podman";

let dir: string;
let upstream: SlowUpstream;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-environment-"));
  upstream = await startSlowUpstream(1, 10);
  writeFileSync(join(dir, "upstream.json"), JSON.stringify(slowConfig(upstream)));
  writeFileSync(join(dir, "encryption-key"), `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A variable-free environment of the gateway's (so the test's own GATEWAY_* never leak in), plus `env`. */
const environment = (env: Record<string, string>) => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GATEWAY_")));
  return { ...clean, ...env };
};

/** Starts `gateway serve` with `env` and `args`; resolves with its "listening" line, and a stop that sends SIGTERM and waits for the exit. */
async function serve(env: Record<string, string>, args: string[] = []): Promise<{ listening: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [GATEWAY_CLI, "serve", "--db", join(dir, `gateway-${randomBytes(4).toString("hex")}.db`), ...args], {
    env: environment(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const listening = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("gateway listening on")) resolve(line);
    });
    void exited.then((code) => reject(new Error(`gateway serve exited ${code} before listening: ${stderr}`)));
  });
  return {
    listening,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

test("host, ports, config, log level and drain timeout come from GATEWAY_* variables", async () => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const gateway = await serve({
    GATEWAY_HOST: "127.0.0.1",
    GATEWAY_PORT: String(port),
    GATEWAY_METRICS_PORT: String(metricsPort),
    GATEWAY_CONFIG: join(dir, "upstream.json"),
    GATEWAY_LOG_LEVEL: "silent",
    GATEWAY_DRAIN_TIMEOUT: "1",
    [SLOW_KEY_ENV]: "not-checked",
  });
  try {
    expect(gateway.listening).toContain(`http://127.0.0.1:${port} `);
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((model) => model.id)).toContain(SLOW_MODEL);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    await metrics.arrayBuffer();
  } finally {
    expect(await gateway.stop()).toBe(0);
  }
});

test("a flag on the command line wins over its variable", async () => {
  const [flagPort, variablePort] = [await freePort(), await freePort()];
  const gateway = await serve({ GATEWAY_PORT: String(variablePort), GATEWAY_LOG_LEVEL: "silent" }, ["--port", String(flagPort)]);
  try {
    expect(gateway.listening).toContain(`http://127.0.0.1:${flagPort} `);
  } finally {
    await gateway.stop();
  }
});

test("GATEWAY_ENCRYPTION_KEY_FILE supplies the key: no key file is made beside the SQLite database", async () => {
  const db = join(dir, "with-key-file.db");
  const gateway = await serve({ GATEWAY_ENCRYPTION_KEY_FILE: join(dir, "encryption-key"), GATEWAY_LOG_LEVEL: "silent", GATEWAY_PORT: "0" }, ["--db", db]);
  try {
    expect(existsSync(db)).toBe(true);
    expect(existsSync(`${db}.key`)).toBe(false);
  } finally {
    await gateway.stop();
  }
  // Without it, the gateway keeps its own key beside the database (what the image's volume holds).
  const plain = join(dir, "without-key-file.db");
  const second = await serve({ GATEWAY_LOG_LEVEL: "silent", GATEWAY_PORT: "0" }, ["--db", plain]);
  await second.stop();
  expect(existsSync(`${plain}.key`)).toBe(true);
});

describe("a start with an unusable key file fails, saying why", () => {
  const start = (env: Record<string, string>) => spawnSync(process.execPath, [GATEWAY_CLI, "serve", "--port", "0", "--db", join(dir, "refused.db")], { env: environment(env), encoding: "utf8" });

  test("a file that is not a 32-byte key", () => {
    writeFileSync(join(dir, "short-key"), "c2hvcnQ=\n");
    const result = start({ GATEWAY_ENCRYPTION_KEY_FILE: join(dir, "short-key") });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`the encryption key file ${join(dir, "short-key")} (--encryption-key-file or GATEWAY_ENCRYPTION_KEY_FILE) must hold a 32-byte key`);
  });

  test("a file that does not exist", () => {
    const result = start({ GATEWAY_ENCRYPTION_KEY_FILE: join(dir, "missing") });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`cannot read the encryption key file ${join(dir, "missing")} (--encryption-key-file or GATEWAY_ENCRYPTION_KEY_FILE): ENOENT`);
  });

  test("a file and GATEWAY_ENCRYPTION_KEY both given", () => {
    const result = start({ GATEWAY_ENCRYPTION_KEY_FILE: join(dir, "encryption-key"), GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64") });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("GATEWAY_ENCRYPTION_KEY and --encryption-key-file (or GATEWAY_ENCRYPTION_KEY_FILE) name two encryption keys; give one");
  });

  test("a key file's contents never reach the error", () => {
    const secret = `${"z".repeat(40)}`;
    writeFileSync(join(dir, "wrong-key"), secret);
    const result = start({ GATEWAY_ENCRYPTION_KEY_FILE: join(dir, "wrong-key") });
    expect(result.status).toBe(1);
    expect(result.stderr).not.toContain(secret);
  });
});
