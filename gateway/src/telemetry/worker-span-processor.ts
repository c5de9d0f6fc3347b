import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { TraceFlags, type Attributes } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace";
import type { FromSpanExportWorker, SpanExportWorkerData, ToSpanExportWorker } from "./span-export-messages";
import { spanRecordOf, type SpanRecord } from "./span-records";

/** Spans handed to the worker in one message: a message costs about as much as a few spans' data. */
const HAND_OFF_BATCH = 64;

/** The SDK's defaults of `OTEL_BSP_MAX_QUEUE_SIZE` and `OTEL_BSP_SCHEDULE_DELAY`. */
const DEFAULT_MAX_QUEUE_SIZE = 2048;
const DEFAULT_SCHEDULE_DELAY_MS = 5000;

/** The reason a span is counted dropped when the export worker is gone (it failed, or the gateway is shutting down). */
export const WORKER_GONE = "export_worker_gone";

export interface WorkerSpanProcessorOptions {
  /** The OTLP/HTTP traces URL (`…/v1/traces`); without it the exporter reads `OTEL_EXPORTER_OTLP_*` from `env`. */
  url?: string;
  /** The worker's environment: the `OTEL_EXPORTER_OTLP_*` and `OTEL_BSP_*` variables are read from it. */
  env: NodeJS.ProcessEnv;
  /** The spans' resource (service name and version). */
  resourceAttributes: Attributes;
  /** Spans the request thread holds at most before dropping (`queue_full`): those waiting to go, and those sent that the worker has not taken yet. */
  maxQueueSize?: number;
  /** The batch processor's delay (`OTEL_BSP_SCHEDULE_DELAY`): the longest a span waits here for others before it goes, to be exported at once. */
  scheduledDelayMillis?: number;
  onDropped(count: number, reason: string): void;
}

/**
 * A span processor that exports from a worker thread (span-export-worker.ts), where the SDK's own
 * batch processor and OTLP exporter serialize and send the spans. On the request thread a finished
 * span costs only its plain data as JSON and a share of one message per {@link HAND_OFF_BATCH} spans.
 * Spans go when {@link HAND_OFF_BATCH} are waiting, or when the first has waited the batch
 * processor's delay, and are then exported at once: a lightly traced gateway wakes its threads for
 * spans no more often than the batch processor would.
 * The request thread holds at most `maxQueueSize` spans the worker has not taken (a worker starved
 * of CPU cannot grow the process's memory without bound); beyond that, spans are dropped and
 * counted, as the batch processor counts its own full queue. Shutdown sends what is still held and
 * waits for the worker's processor to export it.
 */
export class WorkerSpanProcessor implements SpanProcessor {
  readonly #worker: Worker;
  readonly #maxQueueSize: number;
  readonly #delayMillis: number;
  readonly #onDropped: (count: number, reason: string) => void;
  #waiting: SpanRecord[] = [];
  /** The scopes of the spans seen so far (one per tracer: the gateway has one), each record naming its own by index. */
  readonly #scopes: InstrumentationScope[] = [];
  readonly #scopeIndex = new Map<InstrumentationScope, number>();
  /** Spans waiting here or sent and not yet taken by the worker's processor. */
  #held = 0;
  #timer: NodeJS.Timeout | undefined;
  #nextFlush = 0;
  readonly #flushes = new Map<number, () => void>();
  #shutdown: Promise<void> | undefined;
  #gone = false;
  readonly #exited: Promise<void>;

  constructor(options: WorkerSpanProcessorOptions) {
    this.#maxQueueSize = options.maxQueueSize ?? DEFAULT_MAX_QUEUE_SIZE;
    this.#delayMillis = options.scheduledDelayMillis ?? DEFAULT_SCHEDULE_DELAY_MS;
    this.#onDropped = options.onDropped;
    const workerData: SpanExportWorkerData = { spanExport: true, resourceAttributes: options.resourceAttributes, ...(options.url && { url: options.url }) };
    this.#worker = new Worker(join(__dirname, "span-export-worker.js"), { workerData, env: options.env });
    // The worker never keeps the process up: shutdown() is what sends the last spans.
    this.#worker.unref();
    this.#worker.on("message", (message: FromSpanExportWorker) => this.#heard(message));
    this.#worker.on("error", () => undefined);
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve(this.#lost())));
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#gone) return this.#onDropped(1, WORKER_GONE);
    if (this.#held >= this.#maxQueueSize) return this.#onDropped(1, "queue_full");
    this.#held++;
    this.#waiting.push(spanRecordOf(span, this.#scopeOf(span.instrumentationScope)));
    if (this.#waiting.length >= HAND_OFF_BATCH) this.#handOff();
    else this.#timer ??= setTimeout(() => this.#handOff(true), this.#delayMillis).unref();
  }

  /** Hands what is held to the worker and resolves once its processor has exported everything it has. */
  forceFlush(): Promise<void> {
    if (this.#gone) return Promise.resolve();
    this.#handOff();
    const id = this.#nextFlush++;
    return new Promise((resolve) => {
      this.#flushes.set(id, resolve);
      this.#send({ type: "flush", id });
    });
  }

  /** Sends what is held, waits for the worker to export everything (bounded by the exporter's timeout) and ends it. */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      if (!this.#gone) {
        this.#handOff();
        this.#send({ type: "shutdown" });
      }
      await this.#exited;
    })();
    return this.#shutdown;
  }

  #scopeOf(scope: InstrumentationScope): number {
    let index = this.#scopeIndex.get(scope);
    if (index === undefined) {
      index = this.#scopes.push(scope) - 1;
      this.#scopeIndex.set(scope, index);
    }
    return index;
  }

  /** Sends the waiting spans; `due` when they waited the whole delay, so the worker exports them at once. */
  #handOff(due = false): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.length === 0) return;
    const records = this.#waiting;
    this.#waiting = [];
    this.#send({ type: "spans", count: records.length, records: JSON.stringify(records), scopes: this.#scopes, due });
  }

  #send(message: ToSpanExportWorker): void {
    this.#worker.postMessage(message);
  }

  #heard(message: FromSpanExportWorker): void {
    switch (message.type) {
      case "taken":
        this.#held -= message.count;
        return;
      case "dropped":
        this.#onDropped(message.count, message.reason);
        return;
      case "flushed":
        this.#flushes.get(message.id)?.();
        this.#flushes.delete(message.id);
        return;
      case "shut":
        void this.#worker.terminate();
        return;
    }
  }

  /** The worker ended: what it had not taken is lost, counted, and later spans are counted as they end. */
  #lost(): void {
    this.#gone = true;
    clearTimeout(this.#timer);
    this.#waiting = [];
    if (this.#held > 0) this.#onDropped(this.#held, WORKER_GONE);
    this.#held = 0;
    for (const resolve of this.#flushes.values()) resolve();
    this.#flushes.clear();
  }
}
