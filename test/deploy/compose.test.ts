/**
 * deploy/compose.yaml (the gateway and PostgreSQL), short of starting it: the official postgres
 * image it names cannot be pulled here (no container registry is reachable), and podman-compose
 * 1.0.3 (Debian 12's) turns a CMD healthcheck into `/bin/sh -c …`, which the shell-less gateway
 * image cannot run. What is checked instead:
 * - the file loads as `docker compose config` loads it (compose-go: the Compose Specification's
 *   schema, interpolation; scripts/deploy-check/compose-config), and says what the gateway needs;
 * - a missing POSTGRES_PASSWORD stops it with the message the file gives;
 * - podman-compose reads it and turns it into the podman commands expected (`--dry-run`, on a
 *   podman storage and network folder of the test's own).
 * The image those commands run is tested by test/deploy/image*.test.ts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";
import { CONTAINERS_CONF, gatewayVersion, requireTool } from "./podman";

const COMPOSE_FILE = join(REPO_ROOT, "deploy", "compose.yaml");
const PASSWORD = "compose-test-password";

let toolDir: string;
let composeConfig: string;

beforeAll(() => {
  requireTool("go", "golang (or Go from https://go.dev/dl/)");
  requireTool("podman-compose");
  toolDir = mkdtempSync(join(tmpdir(), "compose-check-"));
  composeConfig = join(toolDir, "compose-config");
  execFileSync("go", ["build", "-trimpath", "-o", composeConfig, "./compose-config"], { cwd: join(REPO_ROOT, "scripts", "deploy-check"), stdio: ["ignore", "ignore", "inherit"] });
});
afterAll(() => {
  if (toolDir) rmSync(toolDir, { recursive: true, force: true });
});

function loadCompose(env: Record<string, string | undefined>): { status: number; project: any; error: string } {
  const result = spawnSync(composeConfig, [COMPOSE_FILE], { encoding: "utf8", env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv });
  return { status: result.status ?? -1, project: result.status === 0 ? JSON.parse(result.stdout) : undefined, error: result.stderr };
}

test("the compose file loads as docker compose loads it, with the gateway read-only on its volume, the key as a secret file and PostgreSQL by URL", () => {
  const { status, project, error } = loadCompose({ POSTGRES_PASSWORD: PASSWORD });
  expect(error).toBe("");
  expect(status).toBe(0);
  expect(Object.keys(project.services).sort()).toEqual(["gateway", "postgres"]);
  const gateway = project.services.gateway;
  expect(gateway.image).toBe(`localhost/gateway-keys-gateway:${gatewayVersion()}`);
  expect(gateway.read_only).toBe(true);
  expect(gateway.volumes).toEqual([expect.objectContaining({ type: "volume", source: "gateway-data", target: "/data" })]);
  expect(gateway.environment.GATEWAY_DATABASE_URL).toBe(`postgres://gateway:${PASSWORD}@postgres:5432/gateway`);
  expect(gateway.environment.GATEWAY_ENCRYPTION_KEY_FILE).toBe("/run/secrets/gateway-encryption-key");
  expect(gateway.secrets).toEqual([{ source: "gateway-encryption-key", target: "/run/secrets/gateway-encryption-key" }]);
  expect(project.secrets["gateway-encryption-key"].file).toBe(join(REPO_ROOT, "deploy", "secrets", "gateway-encryption-key"));
  expect(gateway.depends_on.postgres.condition).toBe("service_healthy");
  expect(gateway.healthcheck.test).toEqual(["CMD", "/usr/local/bin/node", "/app/healthcheck.js"]);
  // Published on loopback only: a trial is not exposed to the network by accident.
  expect(gateway.ports.map((port: any) => `${port.host_ip}:${port.published}:${port.target}`)).toEqual(["127.0.0.1:8787:8787", "127.0.0.1:9464:9464"]);
  // The stop waits longer than the drain, so a stream in flight is not cut.
  expect(parseInt(gateway.stop_grace_period, 10)).toBeGreaterThan(Number(gateway.environment.GATEWAY_DRAIN_TIMEOUT));
  expect(project.services.postgres.environment).toMatchObject({ POSTGRES_USER: "gateway", POSTGRES_DB: "gateway", POSTGRES_PASSWORD: PASSWORD });
});

test("without POSTGRES_PASSWORD the file does not load, and says where to set it", () => {
  const { status, error } = loadCompose({ POSTGRES_PASSWORD: undefined });
  expect(status).toBe(1);
  expect(error).toContain("required variable POSTGRES_PASSWORD is missing a value: set POSTGRES_PASSWORD in deploy/.env");
});

test("the check refuses what the Compose Specification does not define", () => {
  const bad = join(toolDir, "bad.yaml");
  writeFileSync(bad, "services:\n  gateway:\n    image: x\n    read_onyl: true\n");
  const result = spawnSync(composeConfig, [bad], { encoding: "utf8" });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("services.gateway.read_onyl");
});

test("podman-compose reads the file and runs the gateway read-only, on its volume, with the key file mounted and ports on 127.0.0.1", () => {
  const podmanDir = mkdtempSync(join(tmpdir(), "compose-podman-"));
  try {
    const podmanArgs = ["--root", join(podmanDir, "root"), "--runroot", join(podmanDir, "run"), "--tmpdir", join(podmanDir, "tmp"), "--network-config-dir", join(podmanDir, "networks")].join(" ");
    const result = spawnSync("podman-compose", ["--podman-args", podmanArgs, "--dry-run", "--file", COMPOSE_FILE, "--project-name", "gateway-keys", "up", "--detach"], {
      encoding: "utf8",
      cwd: join(REPO_ROOT, "deploy"),
      env: { ...process.env, CONTAINERS_CONF, POSTGRES_PASSWORD: PASSWORD },
    });
    expect(result.status).toBe(0);
    const runs = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.startsWith("podman ") && line.includes(" run "));
    const gateway = runs.find((line) => line.includes("--name=gateway-keys_gateway_1"));
    expect(runs.some((line) => line.includes("--name=gateway-keys_postgres_1"))).toBe(true);
    expect(gateway).toBeDefined();
    for (const flag of [
      "--read-only",
      "-v gateway-keys_gateway-data:/data",
      "./secrets/gateway-encryption-key:/run/secrets/gateway-encryption-key:ro",
      "-p 127.0.0.1:8787:8787",
      "-p 127.0.0.1:9464:9464",
      `-e GATEWAY_DATABASE_URL=postgres://gateway:${PASSWORD}@postgres:5432/gateway`,
      `localhost/gateway-keys-gateway:${gatewayVersion()}`,
    ]) {
      expect(gateway).toContain(flag);
    }
  } finally {
    rmSync(podmanDir, { recursive: true, force: true });
  }
});
