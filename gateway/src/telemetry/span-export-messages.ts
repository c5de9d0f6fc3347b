/** What the request thread and the span export worker (span-export-worker.ts) say to each other. */
import type { Attributes } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";

/** What the worker is started with; its environment (the `OTEL_*` variables the exporter and batch processor read) is the gateway's. */
export interface SpanExportWorkerData {
  spanExport: true;
  /** The OTLP/HTTP traces URL (`…/v1/traces`); without it the exporter reads `OTEL_EXPORTER_OTLP_*`. */
  url?: string;
  resourceAttributes: Attributes;
}

/**
 * Messages to the worker: spans to export (`records`: a JSON array of span-records.ts's records, whose
 * `scope` indexes `scopes`; `due`: they waited the batch delay already, export them now), a flush to
 * answer, the shutdown (export what is queued, then stop).
 */
export type ToSpanExportWorker = { type: "spans"; count: number; records: string; scopes: InstrumentationScope[]; due: boolean } | { type: "flush"; id: number } | { type: "shutdown" };

/**
 * Messages from the worker: how many handed-over spans its processor took (they leave the request
 * thread's count of spans in hand), spans it dropped (its queue was full, or an export failed, named
 * as the batch processor names it), a flush done, the shutdown done.
 */
export type FromSpanExportWorker = { type: "taken"; count: number } | { type: "dropped"; count: number; reason: string } | { type: "flushed"; id: number } | { type: "shut" };
