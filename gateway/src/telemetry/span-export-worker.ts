/**
 * The worker thread that exports a gateway's spans (started by worker-span-processor.ts): the
 * OpenTelemetry SDK's own batch processor and OTLP/HTTP (protobuf) exporter, fed the finished spans
 * the request thread hands over as plain data. Serializing and sending spans is most of what
 * tracing costs; here it runs beside the requests instead of between them.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace";
import { batchSettingsFromEnv, droppedSpansMeters } from "./export-settings";
import type { FromSpanExportWorker, SpanExportWorkerData, ToSpanExportWorker } from "./span-export-messages";
import { readableSpanOf, type SpanRecord } from "./span-records";

function serve(port: MessagePort, data: SpanExportWorkerData): void {
  const post = (message: FromSpanExportWorker) => port.postMessage(message);
  const exporter = new OTLPTraceExporter(data.url ? { url: data.url } : {});
  const processor = new BatchSpanProcessor({
    exporter,
    selfObsMeterProvider: droppedSpansMeters((count, reason) => post({ type: "dropped", count, reason })),
    ...batchSettingsFromEnv(process.env),
  });
  const resource = resourceFromAttributes(data.resourceAttributes);
  port.on("message", (message: ToSpanExportWorker) => {
    switch (message.type) {
      case "spans":
        for (const record of JSON.parse(message.records) as SpanRecord[]) processor.onEnd(readableSpanOf(record, resource, message.scopes));
        post({ type: "taken", count: message.count });
        // Their export starts now (a failure is counted as dropped by the processor).
        if (message.due) processor.forceFlush().catch(() => undefined);
        return;
      case "flush":
        // The processor's flush starts the exports of what it holds; the exporter's waits for every export under way.
        // A failed export was counted as dropped already; the flush is done either way.
        void processor
          .forceFlush()
          .then(() => exporter.forceFlush())
          .catch(() => undefined)
          .then(() => post({ type: "flushed", id: message.id }));
        return;
      case "shutdown":
        void processor
          .shutdown()
          .catch(() => undefined)
          .then(() => {
            post({ type: "shut" });
            port.close();
          });
        return;
    }
  });
}

if (parentPort && (workerData as Partial<SpanExportWorkerData> | undefined)?.spanExport === true) serve(parentPort, workerData as SpanExportWorkerData);
