/**
 * The gateway's OCI image, as `npm run release` writes it (scripts/release/image.ts), loaded into
 * podman and run the way docs/deployment.md says: read-only root filesystem, SQLite on a volume,
 * upstream config from a mounted file. It turns ready, serves a key made through the account API
 * and a model call, drains a stream on SIGTERM (tini passes it on) and exits 0, and a new
 * container on the same volume still has the key.
 *
 * The image is built once per set of inputs and cached outside the clone (the release step keys
 * it by a hash of what goes in); a cold build takes about a minute. The timings the issue asks for
 * are printed (start-to-ready, drain).
 */
import { randomUUID } from "node:crypto";
import { execSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { readChatStream, SLOW_KEY_ENV, SLOW_MODEL, slowConfig, slowText, startSlowUpstream, type SlowUpstream } from "../gateway/ops-support";
import { freePort, gatewayVersion, Podman, readArchive, releaseImage, removeReleasedImage, waitForOk, type ReleasedImage } from "./podman";

const PIECES = 10;
const INTERVAL_MS = 200;
const OWNER = "acme";

let image: ReleasedImage;
let podman: Podman;
let upstream: SlowUpstream;
let filesDir: string;
let tag: string;
let healthcheck: { Test: string[] };
let provisioningKey: string;
const volume = "gateway-data";
/** What the tests below hand on: the key made in one container and looked for in the next. */
let createdKey: { keyId: string; secret: string; name: string };
let gatewayUrl: string;
let container: string;

beforeAll(async () => {
  image = await releaseImage();
  console.log(`image ${image.digest}: ${(image.bytes / 1e6).toFixed(1)} MB archive, ${image.cached ? "from the cache" : "built"} in ${image.seconds} s`);
  podman = new Podman();
  podman.run(["load", "--quiet", "--input", image.archive]);
  tag = `localhost/gateway-keys-gateway:${gatewayVersion()}`;
  healthcheck = readArchive(image.archive).config.config.Healthcheck;
  upstream = await startSlowUpstream(PIECES, INTERVAL_MS);
  filesDir = mkdtempSync(join(tmpdir(), "gateway-image-files-"));
  const configFile = join(filesDir, "upstream.json");
  writeFileSync(configFile, JSON.stringify(slowConfig(upstream)));
  chmodSync(configFile, 0o644); // read by the container's user, not the host's
  podman.run(["volume", "create", volume]);
});

afterAll(async () => {
  podman?.close();
  await upstream?.close();
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  removeReleasedImage(image);
});

/** Starts the gateway's container on the volume, listening on 127.0.0.1 only; resolves once /readyz answers 200. */
async function startGateway(): Promise<{ url: string; name: string; readyMs: number }> {
  const port = await freePort();
  const name = `gateway-${randomUUID().slice(0, 8)}`;
  const startedAt = Date.now();
  podman.run([
    "run", "--detach", "--name", name, "--network", "host", "--read-only",
    "--volume", `${volume}:/data`,
    "--volume", `${join(filesDir, "upstream.json")}:/etc/gateway/upstream.json:ro`,
    "--env", "GATEWAY_HOST=127.0.0.1", "--env", `GATEWAY_PORT=${port}`, "--env", `GATEWAY_METRICS_PORT=${await freePort()}`,
    "--env", "GATEWAY_CONFIG=/etc/gateway/upstream.json",
    "--env", `${SLOW_KEY_ENV}=upstream-secret-not-checked`,
    // podman 4 reads an image's HEALTHCHECK only from Docker-format images: hand it the archive's own.
    "--health-cmd", JSON.stringify(healthcheck.Test.slice(1)),
    tag,
  ]);
  const url = `http://127.0.0.1:${port}`;
  const readyMs = await waitForOk(`${url}/readyz`, 60_000, startedAt);
  return { url, name, readyMs };
}

const account = (method: string, path: string, body?: unknown) =>
  fetch(`${gatewayUrl}/v1/account/api-keys${path}`, {
    method,
    headers: {
      authorization: `Bearer ${provisioningKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": randomUUID() }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const chat = (url: string, secret: string, stream: boolean) =>
  undiciFetch(`${url}/v1/chat/completions`, {
    dispatcher: patientClient,
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: SLOW_MODEL, stream, messages: [{ role: "user", content: "hello from a container" }] }),
  });
/** Keeps idle connections open, as a proxy would: the gateway must close them at the drain. */
const patientClient = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
afterAll(() => patientClient.close());

test("the archive is an OCI image with its digest, OCI labels, a non-root user, tini as PID 1 and a HEALTHCHECK on /readyz", () => {
  const { index, manifest, config } = readArchive(image.archive);
  expect(index.manifests[0].digest).toBe(image.digest);
  expect(readFileSync(image.digestFile, "utf8").trim()).toBe(image.digest);
  expect(manifest.mediaType).toBe("application/vnd.oci.image.manifest.v1+json");
  expect(config.config.Labels).toMatchObject({
    "org.opencontainers.image.version": gatewayVersion(),
    "org.opencontainers.image.source": expect.stringMatching(/^https:\/\//),
    "org.opencontainers.image.licenses": "Apache-2.0",
  });
  expect(config.config.User).toBe("10001:10001");
  expect(config.config.Entrypoint.slice(0, 2)).toEqual(["/usr/bin/tini", "--"]);
  expect(config.config.Volumes).toEqual({ "/data": {} });
  expect(config.config.Healthcheck.Test).toEqual(["CMD", "/usr/local/bin/node", "/app/healthcheck.js"]);
});

test("the image holds no compiler, no package manager, no npm cache and no development dependency", () => {
  const { manifest } = readArchive(image.archive);
  const paths: string[] = [];
  for (const layer of manifest.layers as Array<{ digest: string }>) {
    const listing = execSync(`tar -xOf '${image.archive}' 'blobs/${layer.digest.replace(":", "/")}' | tar -tzf -`, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    paths.push(...listing.split("\n").filter(Boolean));
  }
  expect(paths).toEqual(expect.arrayContaining(["usr/local/bin/node", "usr/bin/tini", "app/gateway/dist/cli.js", "app/node_modules/fastify/package.json"]));
  const forbidden = paths.filter((path) =>
    /(^|\/)(\.npm|_cacache)\/|^usr\/bin\/(gcc|cc|g\+\+|make|apt|apt-get|dpkg|npm|npx|sh|bash)$|node_modules\/(typescript|jest|esbuild|ts-jest|@types)\//.test(path),
  );
  expect(forbidden).toEqual([]);
});

test("on a read-only root filesystem and a volume, the container turns ready and runs as the gateway user under tini", async () => {
  provisioningKey = podman
    .run(["run", "--rm", "--network", "host", "--read-only", "--volume", `${volume}:/data`, tag, "provisioning-key", "create", "--db", "/data/gateway.db", "--owner", OWNER])
    .trim();
  expect(provisioningKey).toMatch(/^gwp_/);
  const started = await startGateway();
  console.log(`start to ready (podman run to /readyz 200): ${started.readyMs} ms`);
  gatewayUrl = started.url;
  container = started.name;
  expect(podman.status(["healthcheck", "run", container])).toBe(0);
  const probe = (code: string) => podman.run(["exec", container, "/usr/local/bin/node", "-e", code]).trim();
  expect(probe("process.stdout.write(String(process.getuid()))")).toBe("10001");
  expect(probe("process.stdout.write(require('fs').readFileSync('/proc/1/cmdline','utf8').split('\\0')[0])")).toBe("/usr/bin/tini");
  expect(probe("try { require('fs').writeFileSync('/app/x', ''); process.stdout.write('written') } catch (e) { process.stdout.write(e.code) }")).toBe("EROFS");
});

test("a key created through the account API calls a model forwarded to the mounted config's provider", async () => {
  const created = await account("POST", "", { name: "container key" });
  expect(created.status).toBe(201);
  createdKey = (await created.json()) as typeof createdKey;
  const answer = await chat(gatewayUrl, createdKey.secret, false);
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
  expect(body.choices[0]!.message.content).toBe(slowText(PIECES));
});

test("SIGTERM during a stream drains it to its end, then the container exits 0", async () => {
  const response = await chat(gatewayUrl, createdKey.secret, true);
  expect(response.status).toBe(200);
  let signalledAt = 0;
  let stopping: Promise<string> | undefined;
  const { text, done } = await readChatStream(response, () => {
    signalledAt = Date.now();
    stopping = podman.runAsync(["kill", "--signal", "TERM", container]);
  });
  const streamEndedAt = Date.now();
  await stopping;
  const exitCode = (await podman.runAsync(["wait", container])).trim();
  const exitedAt = Date.now();
  console.log(`drain: the stream ended ${streamEndedAt - signalledAt} ms after SIGTERM, the container exited ${exitedAt - signalledAt} ms after it`);
  expect({ text, done }).toEqual({ text: slowText(PIECES), done: true });
  expect(exitCode).toBe("0");
  // Most of the stream came after the signal: it was drained, not cut.
  expect(streamEndedAt - signalledAt).toBeGreaterThan((PIECES * INTERVAL_MS) / 2);
  expect(podman.logs(container)).toContain("SIGTERM: not ready; finishing requests in flight");
});

test("a new container on the same volume finds the key and accepts its secret", async () => {
  const started = await startGateway();
  gatewayUrl = started.url;
  const read = await account("GET", `/${createdKey.keyId}`);
  expect(read.status).toBe(200);
  expect(((await read.json()) as { name: string }).name).toBe("container key");
  const answer = await chat(gatewayUrl, createdKey.secret, false);
  expect(answer.status).toBe(200);
  await answer.arrayBuffer();
  podman.run(["stop", "--time", "40", started.name]);
});
