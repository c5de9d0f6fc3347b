/**
 * A throw-away Jaeger for the tracing tests: its v2 binary (scripts/setup jaeger builds it from its
 * Go module) with spans in memory, an OTLP/HTTP receiver and the query API on free loopback ports.
 *
 *   const jaeger = await startJaeger();
 *   // gateway serve --otel-endpoint ${jaeger.otlpUrl}
 *   const spans = await jaeger.waitForTrace(traceId, (spans) => spans.length >= 4);
 *   await jaeger.stop();
 *
 * Only erasable TypeScript and package imports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/** One span as Jaeger's query API returns it, its tags as a plain object. */
export interface JaegerSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** `server`, `client`, `internal`… (the `span.kind` tag). */
  kind: string | undefined;
  tags: Record<string, string | number | boolean>;
  serviceName: string;
  startMicros: number;
  durationMicros: number;
}

export interface Jaeger {
  /** Base URL of the OTLP/HTTP receiver (a gateway's `--otel-endpoint`). */
  otlpUrl: string;
  /** Base URL of the query API (`/api/traces/{id}`). */
  queryUrl: string;
  /** The spans of one trace so far (none yet: an empty list). */
  trace(traceId: string): Promise<JaegerSpan[]>;
  /** Polls {@link trace} until `done` holds (spans arrive in batches, a moment after the work). */
  waitForTrace(traceId: string, done: (spans: JaegerSpan[]) => boolean, timeoutMs?: number): Promise<JaegerSpan[]>;
  /** Stops it (what it stored is gone): a gateway exporting to it from then on fails its exports. */
  stop(): Promise<void>;
}

/** Where the `jaeger` binary is: `JAEGER_BINARY`, else `jaeger` on PATH (scripts/run puts setup's build there). */
export function jaegerBinary(): string {
  return process.env.JAEGER_BINARY || "jaeger";
}

const START_TIMEOUT_MS = 30_000;

function configYaml(otlpPort: number, queryPort: number, queryGrpcPort: number, healthPort: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: []
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${queryPort}
    grpc:
      endpoint: 127.0.0.1:${queryGrpcPort}
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${healthPort}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

interface ApiTrace {
  data: {
    traceID: string;
    spans: {
      traceID: string;
      spanID: string;
      operationName: string;
      references: { refType: string; spanID: string }[];
      startTime: number;
      duration: number;
      tags: { key: string; value: string | number | boolean }[];
      processID: string;
    }[];
    processes: Record<string, { serviceName: string }>;
  }[];
}

/** Starts Jaeger and resolves once its receiver and query API answer. */
export async function startJaeger(): Promise<Jaeger> {
  const dir = mkdtempSync(join(tmpdir(), "jaeger-"));
  const [otlpPort, queryPort, queryGrpcPort, healthPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const configPath = join(dir, "config.yaml");
  writeFileSync(configPath, configYaml(otlpPort, queryPort, queryGrpcPort, healthPort));
  let output = "";
  const child: ChildProcess = spawn(jaegerBinary(), ["--config", configPath], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8192)));
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8192)));
  // A binary that cannot be started emits "error" and never "exit".
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      spawnError = error;
      resolve();
    });
  });
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && spawnError === undefined) {
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || spawnError !== undefined) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`jaeger could not start (${spawnError?.message ?? `exit code ${child.exitCode}`}):\n${output}`);
    }
    const ready = await fetch(`http://127.0.0.1:${healthPort}/status`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`jaeger did not become ready in ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const trace = async (traceId: string): Promise<JaegerSpan[]> => {
    const response = await fetch(`${queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`jaeger's query API answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as ApiTrace;
    return body.data.flatMap((found) =>
      found.spans.map((span) => {
        const tags = Object.fromEntries(span.tags.map((tag) => [tag.key, tag.value]));
        return {
          traceId: span.traceID,
          spanId: span.spanID,
          parentSpanId: span.references.find((reference) => reference.refType === "CHILD_OF")?.spanID,
          name: span.operationName,
          kind: typeof tags["span.kind"] === "string" ? tags["span.kind"] : undefined,
          tags,
          serviceName: found.processes[span.processID]?.serviceName ?? "",
          startMicros: span.startTime,
          durationMicros: span.duration,
        };
      }),
    );
  };
  return {
    otlpUrl: `http://127.0.0.1:${otlpPort}`,
    queryUrl,
    trace,
    async waitForTrace(traceId, done, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const spans = await trace(traceId);
        if (done(spans)) return spans;
        if (Date.now() > until) throw new Error(`trace ${traceId} did not reach the expected spans in ${timeoutMs} ms; it has: ${spans.map((span) => span.name).join(", ") || "none"}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop,
  };
}
