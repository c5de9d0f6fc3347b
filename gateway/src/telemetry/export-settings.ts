import { createNoopMeter, type Attributes, type Counter, type Meter, type MeterProvider } from "@opentelemetry/api";

/** A non-negative number from `name` in `env`, or undefined when unset; anything else is refused, naming the variable. */
function countFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, at least 0, got ${JSON.stringify(text)}`);
  return value;
}

/** The batch processor's settings from the `OTEL_BSP_*` variables, as the SDKs read them (unset: the SDK's defaults). */
export function batchSettingsFromEnv(env: NodeJS.ProcessEnv): { maxQueueSize?: number; scheduledDelayMillis?: number; exportTimeoutMillis?: number; maxExportBatchSize?: number } {
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
export function droppedSpansMeters(onDropped: (count: number, reason: string) => void): MeterProvider {
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
