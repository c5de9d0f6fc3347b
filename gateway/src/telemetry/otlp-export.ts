import { createNoopMeter, type Attributes, type Counter, type Meter, type MeterProvider } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { GatewayTracerProvider } from "./started-traces";

/** The ratio of traces the gateway starts itself when `OTEL_TRACES_SAMPLER` names none (docs/operators/operations.md#traces). */
export const DEFAULT_TRACE_RATIO = 0.01;

/** What decides whether and where spans go: the `--otel-endpoint` flag and the standard `OTEL_*` variables. */
export interface OtlpExportOptions {
  /** Base URL of an OTLP/HTTP receiver (`http://collector:4318`); spans go to its `/v1/traces`. Without it, the `OTEL_EXPORTER_OTLP_*` variables decide. */
  endpoint?: string;
  /** The process environment (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  serviceVersion: string;
  /** Spans that never reached the receiver: `reason` is `queue_full`, or the failed export's error name. */
  onDropped(count: number, reason: string): void;
}

/** Whether spans are exported at all: an endpoint was given by flag or variable, and the SDK is not disabled. */
export function tracingWanted(options: Pick<OtlpExportOptions, "endpoint" | "env">): boolean {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER !== undefined && env.OTEL_TRACES_EXPORTER.split(",").map((name) => name.trim()).includes("none")) return false;
  return Boolean(options.endpoint || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The sampler that `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name, read as the
 * OpenTelemetry SDKs read them. Unset, the gateway samples {@link DEFAULT_TRACE_RATIO} of the traces
 * it starts and follows a caller's decision (a request that arrives with a sampled `traceparent` is
 * always traced): the SDKs' own default traces everything, which on a busy gateway is a cost to choose.
 * An unknown name or an out-of-range ratio is refused, so a typo never silently changes what is kept.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || "parentbased_traceidratio";
  const ratio = () => {
    const text = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    if (!text) return env.OTEL_TRACES_SAMPLER ? 1 : DEFAULT_TRACE_RATIO;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      throw new Error(`OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got ${JSON.stringify(text)}`);
    }
    return value;
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio());
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER: expected always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio, got ${JSON.stringify(name)}`,
      );
  }
}

/** A non-negative number from `name` in `env`, or undefined when unset; anything else is refused, naming the variable. */
function countFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, at least 0, got ${JSON.stringify(text)}`);
  return value;
}

/** The batch processor's settings from the `OTEL_BSP_*` variables, as the SDKs read them (unset: the SDK's defaults). */
function batchSettingsFromEnv(env: NodeJS.ProcessEnv) {
  const settings = {
    maxQueueSize: countFromEnv(env, "OTEL_BSP_MAX_QUEUE_SIZE"),
    scheduledDelayMillis: countFromEnv(env, "OTEL_BSP_SCHEDULE_DELAY"),
    exportTimeoutMillis: countFromEnv(env, "OTEL_BSP_EXPORT_TIMEOUT"),
    maxExportBatchSize: countFromEnv(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** The SDK's own count of finished spans, the one self-observability metric the batch processor reports. */
const PROCESSED_SPANS = "otel.sdk.processor.span.processed";

/**
 * A meter provider that hears only the batch processor's count of spans it finished, and passes on
 * those that failed (`error.type`: `queue_full` when the queue was full, else the export's error).
 */
function droppedSpansMeters(onDropped: OtlpExportOptions["onDropped"]): MeterProvider {
  const noop = createNoopMeter();
  const processed: Counter = {
    add(value: number, attributes?: Attributes) {
      const reason = attributes?.["error.type"];
      if (reason !== undefined) onDropped(value, String(reason));
    },
  };
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string, options?: object) => (name === PROCESSED_SPANS ? processed : noop.createCounter(name, options)),
  });
  return { getMeter: () => meter };
}

/**
 * The gateway's own tracer provider: spans batched and sent over OTLP/HTTP (protobuf) by the
 * OpenTelemetry SDK's exporter, which reads the `OTEL_EXPORTER_OTLP_*` variables (headers, timeout,
 * certificates…) itself. Exporting runs off the request path; a receiver that is down or slow costs
 * only the spans the queue cannot hold, reported to `onDropped`. Shut it down to send what is queued.
 */
export function otlpTracerProvider(options: OtlpExportOptions): GatewayTracerProvider {
  const env = options.env ?? process.env;
  const exporter = new OTLPTraceExporter(options.endpoint ? { url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces` } : {});
  return new GatewayTracerProvider({
    sampler: samplerFromEnv(env),
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || "gateway-keys",
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter, selfObsMeterProvider: droppedSpansMeters(options.onDropped), ...batchSettingsFromEnv(env) })],
  });
}
