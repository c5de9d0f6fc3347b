import type { UsageSummary, UsageTimeline } from "@gateway-keys/contract";
import { Chart } from "../components/chart";
import { Table } from "../components/table";
import { units } from "../format";
import { bucketStarts, perBucket } from "../series";

/** The owner's usage: totals, spend per day, and spend by model and by label. */
export function UsagePage({ usage, days }: { usage: UsageSummary; days: UsageTimeline }) {
  const spend = perBucket(days, (point) => Number(point.costUnits));
  return (
    <main id="main" tabIndex={-1}>
      <h1>Usage</h1>
      <p class="totals">
        <span>
          <strong data-figure="requests">{usage.requests}</strong> requests answered
        </span>
        <span>
          <strong data-figure="spent">{units(usage.spentUnits)}</strong> credits spent
        </span>
      </p>
      <Chart
        title="Spend per day, last 30 days (credits)"
        times={bucketStarts(days)}
        series={[{ label: "spend", values: spend, stroke: "#1d4ed8" }]}
        summary={`Spend over the last 30 days: ${Math.round(spend.reduce((a, b) => a + b, 0) * 1e6) / 1e6} credits`}
      />
      <h2>By model</h2>
      <Table
        class="by-model"
        columns={[
          { title: "Model", cell: (line) => line.model },
          { title: "Requests", cell: (line) => line.requests },
          { title: "Spent", cell: (line) => units(line.spentUnits) },
        ]}
        rows={usage.byModel}
        rowKey={(line) => line.model}
        rowData={(line) => ({ "data-model": line.model })}
      />
      <h2>By label</h2>
      {usage.byLabel.length === 0 ? (
        <p class="muted">No labelled key has spent yet.</p>
      ) : (
        <Table
          class="by-label"
          columns={[
            { title: "Label", cell: (line) => `${line.label}=${line.value}` },
            { title: "Requests", cell: (line) => line.requests },
            { title: "Spent", cell: (line) => units(line.spentUnits) },
          ]}
          rows={usage.byLabel}
          rowKey={(line) => `${line.label}=${line.value}`}
        />
      )}
    </main>
  );
}
