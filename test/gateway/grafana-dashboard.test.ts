/**
 * docs/grafana/gateway-dashboard.json queries only metrics the gateway exports: every name in
 * every panel's expression is declared (`# TYPE`) in what a running gateway serves at /metrics,
 * histogram series by their histogram.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";
import { startTestGateway, testStoreKind, type TestGateway } from "@gateway-keys/testkit/test-gateway";

interface Dashboard {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
}

const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, "docs/grafana/gateway-dashboard.json"), "utf8")) as Dashboard;
const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
/** Metric names in PromQL: the words before `{`, `[` or `)` that are not functions or keywords. */
const metricNames = (expr: string) => [...expr.matchAll(/\b((?:gateway|process|nodejs)_[a-z0-9_]+)\b/g)].map((match) => match[1]!);

let gateway: TestGateway;
let exported: Map<string, string>;

beforeAll(async () => {
  gateway = await startTestGateway({ storage: "memory", metricsPort: 0 });
  const text = await (await fetch(`${gateway.gateway.metricsUrl}/metrics`)).text();
  exported = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
});
afterAll(() => gateway?.stop());

test("the dashboard has panels for traffic, latency, errors, upstream health and spend reservations", () => {
  const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join(" | ");
  for (const topic of ["requests per second", "latency", "errors", "upstream", "spend reservations"]) expect(titles).toContain(topic);
  expect(expressions.length).toBeGreaterThanOrEqual(10);
});

test("every metric a panel queries is one the gateway exports", () => {
  const missing: string[] = [];
  for (const { panel, expr } of expressions) {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
      const declared = exported.get(name) ?? (histogram && exported.get(histogram[1]!) === "histogram" ? "histogram" : undefined);
      // The connection pool's figures exist only on a store with a pool (PostgreSQL).
      const poolOnly = name.startsWith("gateway_db_pool_") && testStoreKind() === "sqlite";
      if (!declared && !poolOnly) missing.push(`${panel}: ${name}`);
    }
  }
  expect(missing).toEqual([]);
});
