/**
 * The Helm chart (deploy/helm/gateway-keys), short of a cluster (none is reachable here): `helm
 * lint --strict` and `helm template` over the default values and every documented value set
 * (the chart's ci/ folder), each rendered manifest decoded strictly into Kubernetes' own Go types
 * (scripts/deploy-check/k8s-validate: unknown fields, wrong types and unknown kinds refused), and what the
 * manifests say checked against what the gateway needs: probes, the drain and grace period, the
 * Secrets, the config, the disruption budget, the metrics port.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { GatewayConfig } from "@gateway-keys/gateway";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";
import { gatewayVersion, requireTool } from "./podman";

const CHART = join(REPO_ROOT, "deploy", "helm", "gateway-keys");
const VALUE_SETS = readdirSync(join(CHART, "ci")).filter((file) => file.endsWith(".yaml")).sort();
/** The oldest Kubernetes the chart declares (Chart.yaml kubeVersion) and the one Helm's k8s.io modules are of. */
const KUBE_VERSIONS = ["1.25.0", "1.37.0"];

let toolDir: string;
let validator: string;

beforeAll(() => {
  requireTool("helm", "helm (scripts/setup builds it from Go modules)");
  requireTool("go", "golang (or Go from https://go.dev/dl/)");
  toolDir = mkdtempSync(join(tmpdir(), "k8s-validate-"));
  validator = join(toolDir, "k8s-validate");
  execFileSync("go", ["build", "-trimpath", "-o", validator, "./k8s-validate"], { cwd: join(REPO_ROOT, "scripts", "deploy-check"), stdio: ["ignore", "ignore", "inherit"] });
});
afterAll(() => {
  if (toolDir) rmSync(toolDir, { recursive: true, force: true });
});

const valueArgs = (valueSet?: string) => (valueSet ? ["--values", join(CHART, "ci", valueSet)] : []);

function helm(args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync("helm", args, { encoding: "utf8" });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function render(valueSet?: string, extra: string[] = [], kubeVersion?: string): string {
  const rendered = helm(["template", "gw", CHART, ...valueArgs(valueSet), ...extra, ...(kubeVersion ? ["--kube-version", kubeVersion] : [])]);
  if (rendered.status !== 0) throw new Error(`helm template failed: ${rendered.stderr}`);
  return rendered.stdout;
}

/** k8s-validate's verdict on manifests: its exit code, the objects it decoded, its error. */
function validate(manifests: string): { status: number; objects: string[]; error: string } {
  const result = spawnSync(validator, [], { input: manifests, encoding: "utf8" });
  return { status: result.status ?? -1, objects: result.stdout.split("\n").filter(Boolean), error: result.stderr };
}

/** The rendered objects, by "Kind name". */
function objects(manifests: string): Map<string, any> {
  const found = new Map<string, any>();
  for (const document of parseAllDocuments(manifests)) {
    const object = document.toJS();
    if (object) found.set(`${object.kind} ${object.metadata.name}`, object);
  }
  return found;
}

const container = (rendered: Map<string, any>) => rendered.get("Deployment gw-gateway-keys").spec.template.spec.containers[0];
const envOf = (rendered: Map<string, any>) => Object.fromEntries(container(rendered).env.map((env: any) => [env.name, env.value ?? env.valueFrom]));

describe.each([undefined, ...VALUE_SETS])("values: %s (undefined: the defaults)", (valueSet) => {
  test("helm lint --strict passes", () => {
    const linted = helm(["lint", "--strict", CHART, ...valueArgs(valueSet)]);
    expect(linted.stderr).toBe("");
    expect(linted.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(linted.status).toBe(0);
  });

  test.each(KUBE_VERSIONS)("every manifest rendered for Kubernetes %s decodes strictly into its Kubernetes type", (kubeVersion) => {
    const manifests = render(valueSet, [], kubeVersion);
    const verdict = validate(manifests);
    expect(verdict.error).toBe("");
    expect(verdict.status).toBe(0);
    expect(verdict.objects.length).toBe(objects(manifests).size);
    expect(verdict.objects).toEqual(expect.arrayContaining(['apps/v1 Deployment "gw-gateway-keys"', 'v1 Service "gw-gateway-keys"']));
  });

  test("the pod runs the image as non-root on a read-only root filesystem, with liveness on /healthz, readiness on /readyz and a grace period covering preStop and the drain", () => {
    const rendered = objects(render(valueSet));
    const values = { gateway: { preStopSeconds: 10, drainTimeoutSeconds: 30 }, ...(valueSet ? parseYaml(readFileSync(join(CHART, "ci", valueSet), "utf8")) : {}) };
    const gateway = { preStopSeconds: 10, drainTimeoutSeconds: 30, ...values.gateway };
    const pod = rendered.get("Deployment gw-gateway-keys").spec.template.spec;
    const main = container(rendered);
    expect(main.image).toMatch(new RegExp(`:${values.image?.tag ?? gatewayVersion()}$`));
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(pod.enableServiceLinks).toBe(false);
    expect(main.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(main.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(main.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(envOf(rendered).GATEWAY_DRAIN_TIMEOUT).toBe(String(gateway.drainTimeoutSeconds));
    expect(main.lifecycle.preStop.exec.command.join(" ")).toContain(`setTimeout(() => {}, ${gateway.preStopSeconds * 1000})`);
    expect(pod.terminationGracePeriodSeconds).toBe(gateway.preStopSeconds + gateway.drainTimeoutSeconds + 5);
    expect(main.resources.requests).toBeDefined();
    expect(main.ports.map((port: any) => port.name)).toEqual(["http", "metrics"]);
  });
});

test("three replicas on PostgreSQL take the database URL and the encryption key from Secrets and the upstream config from a ConfigMap", () => {
  const rendered = objects(render("postgres-values.yaml"));
  const deployment = rendered.get("Deployment gw-gateway-keys");
  expect(deployment.spec.replicas).toBe(3);
  const env = envOf(rendered);
  expect(env.GATEWAY_DATABASE_URL).toEqual({ secretKeyRef: { name: "gateway-database", key: "database-url" } });
  const mounts = Object.fromEntries(container(rendered).volumeMounts.map((mount: any) => [mount.name, mount.mountPath]));
  const volumes = Object.fromEntries(deployment.spec.template.spec.volumes.map((volume: any) => [volume.name, volume]));
  expect(env.GATEWAY_ENCRYPTION_KEY_FILE).toBe(`${mounts["encryption-key"]}/encryption-key`);
  expect(volumes["encryption-key"].secret).toMatchObject({ secretName: "gateway-encryption-key", items: [{ key: "encryption-key", path: "encryption-key" }] });
  expect(env.GATEWAY_CONFIG).toBe(`${mounts.upstream}/upstream.yaml`);
  expect(volumes.upstream.configMap.name).toBe("gateway-upstream");
  expect(container(rendered).envFrom).toEqual([{ secretRef: { name: "gateway-provider-keys" } }]);
  // No secret value reaches the environment or the arguments in plain text.
  expect(JSON.stringify(container(rendered))).not.toMatch(/postgres:\/\//);
});

test("a ConfigMap made outside the chart is reloaded in place with upstream.watch, and mounted as a file the kubelet updates (no subPath)", () => {
  expect(envOf(objects(render("postgres-values.yaml"))).GATEWAY_WATCH_CONFIG).toBeUndefined();
  const rendered = objects(render("postgres-values.yaml", ["--set", "upstream.watch=true"]));
  expect(envOf(rendered).GATEWAY_WATCH_CONFIG).toBe("true");
  expect(container(rendered).volumeMounts.find((mount: any) => mount.name === "upstream").subPath).toBeUndefined();
});

test("the disruption budget, the metrics Service and ServiceMonitor, and the NetworkPolicy select the gateway's pods and ports", () => {
  const rendered = objects(render("postgres-values.yaml"));
  const podLabels = rendered.get("Deployment gw-gateway-keys").spec.template.metadata.labels;
  const pdb = rendered.get("PodDisruptionBudget gw-gateway-keys");
  expect(pdb.spec.maxUnavailable).toBe(1);
  expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
  const metricsService = rendered.get("Service gw-gateway-keys-metrics");
  expect(podLabels).toMatchObject(metricsService.spec.selector);
  expect(metricsService.spec.ports).toEqual([expect.objectContaining({ name: "metrics", targetPort: "metrics" })]);
  const monitor = rendered.get("ServiceMonitor gw-gateway-keys");
  expect(metricsService.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
  expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
  expect(monitor.metadata.labels.release).toBe("prometheus");
  // The load-balanced Service carries the API port only.
  expect(rendered.get("Service gw-gateway-keys").spec.ports.map((port: any) => port.targetPort)).toEqual(["http"]);
  const policy = rendered.get("NetworkPolicy gw-gateway-keys");
  expect(podLabels).toMatchObject(policy.spec.podSelector.matchLabels);
  expect(policy.spec.ingress.map((rule: any) => rule.ports[0].port)).toEqual(["http", "metrics"]);
  expect(policy.spec.ingress[1].from[0].namespaceSelector.matchLabels).toEqual({ "kubernetes.io/metadata.name": "monitoring" });
});

test("one SQLite process keeps its data on a PersistentVolumeClaim and is replaced, not rolled", () => {
  const rendered = objects(render());
  const deployment = rendered.get("Deployment gw-gateway-keys");
  expect(deployment.spec.replicas).toBe(1);
  expect(deployment.spec.strategy.type).toBe("Recreate");
  const data = deployment.spec.template.spec.volumes.find((volume: any) => volume.name === "data");
  expect(data.persistentVolumeClaim.claimName).toBe("gw-gateway-keys-data");
  expect(rendered.get("PersistentVolumeClaim gw-gateway-keys-data").spec.resources.requests.storage).toBe("1Gi");
  expect(rendered.has("PodDisruptionBudget gw-gateway-keys")).toBe(false);
  expect(envOf(rendered).GATEWAY_DATABASE_URL).toBeUndefined();
});

test("an upstream config given in values becomes a ConfigMap the gateway's own config schema accepts", () => {
  const rendered = objects(render("sqlite-values.yaml"));
  const configMap = rendered.get("ConfigMap gw-gateway-keys-upstream");
  const parsed = GatewayConfig.safeParse(parseYaml(configMap.data["upstream.yaml"]));
  expect(parsed.error?.issues).toBeUndefined();
  expect(parsed.data?.models.map((model) => model.id)).toEqual(["chat"]);
  expect(envOf(rendered).GATEWAY_CONFIG).toBe("/etc/gateway/upstream.yaml");
});

test("a URL and a key given in values become Secrets that hold exactly them", () => {
  const rendered = objects(render("postgres-inline-values.yaml"));
  const values = parseYaml(readFileSync(join(CHART, "ci", "postgres-inline-values.yaml"), "utf8"));
  const decoded = (name: string, key: string) => Buffer.from(rendered.get(`Secret ${name}`).data[key], "base64").toString();
  expect(decoded("gw-gateway-keys-database", "database-url")).toBe(values.database.url);
  expect(decoded("gw-gateway-keys-encryption-key", "encryption-key")).toBe(values.encryptionKey.value);
  expect(container(rendered).args).toEqual(["serve", "--database-pool-size", "10", "--rate-limit", "500"]);
});

test.each([
  [["--set", "replicaCount=3"], "replicaCount > 1 needs PostgreSQL"],
  [["--set", "database.existingSecret=db"], "PostgreSQL needs one encryption key for every replica"],
  [["--set", "gateway.metricsPort=8787"], "gateway.port and gateway.metricsPort must differ"],
  [["--set", "metrics.service.enabled=false", "--set", "metrics.serviceMonitor.enabled=true"], "needs metrics.service.enabled"],
])("settings that cannot work together fail the render with what to change (%j)", (args, message) => {
  const rendered = helm(["template", "gw", CHART, ...args]);
  expect(rendered.status).not.toBe(0);
  expect(rendered.stderr).toContain(message);
});

describe("the strict decoding refuses", () => {
  const deployment = (spec: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n${spec}`;
  const pod = "  selector: { matchLabels: { a: b } }\n  template:\n    metadata: { labels: { a: b } }\n    spec: { containers: [{ name: c, image: i }] }\n";

  test("a manifest it accepts when well formed", () => {
    expect(validate(deployment(`  replicas: 2\n${pod}`))).toEqual({ status: 0, objects: ['apps/v1 Deployment "x"'], error: "" });
  });
  test.each([
    ["an unknown field", deployment(`  replicas: 2\n  replica: 3\n${pod}`), 'unknown field "spec.replica"'],
    ["a value of the wrong type", deployment(`  replicas: "two"\n${pod}`), "spec.replicas"],
    ["a duplicated field", deployment(`  replicas: 2\n  replicas: 3\n${pod}`), "replicas"],
    ["a quantity that does not parse", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: { name: x }\nspec: { resources: { requests: { storage: lots } } }\n", "quantities must match"],
    ["a kind it does not know", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: { name: x }\n", "not a kind this check knows"],
  ])("%s", (_what, manifest, message) => {
    const verdict = validate(manifest);
    expect(verdict.status).toBe(1);
    expect(verdict.error).toContain(message);
  });
});

test("every value in values.yaml has its row in the chart's README", () => {
  const leaves = (value: unknown, path: string[] = []): string[] =>
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0
      ? Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]))
      : [path.join(".")];
  const readme = readFileSync(join(CHART, "README.md"), "utf8");
  const undocumented = leaves(parseYaml(readFileSync(join(CHART, "values.yaml"), "utf8"))).filter((key) => !readme.includes(`| \`${key}\` |`));
  expect(undocumented).toEqual([]);
});
