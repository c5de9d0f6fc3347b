import type { ApiKey, ListPage, LogEntry, UsageTimeline } from "@gateway-keys/contract";
import { Chart } from "../components/chart";
import { firstLimitOf, SpendBar } from "../components/spend-bar";
import { Secrets } from "../components/secrets";
import { Labels, StateBadge } from "../components/state";
import { Table } from "../components/table";
import { dateTime, managedBy, relative, units } from "../format";
import { bucketStarts, byModelAndStatus, perBucket } from "../series";

export interface KeyView {
  apiKey: ApiKey;
  days: UsageTimeline;
  hours: UsageTimeline;
  logs: ListPage<LogEntry>;
}

function Policy({ name, children }: { name: string; children: preact.ComponentChildren }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** One key: its policies as declared, spend and traffic over time, and its recent requests. */
export function KeyPage({ view }: { view: KeyView }) {
  const { apiKey: key, days, hours, logs } = view;
  const manager = managedBy(key.clientReference);
  const rates = key.rateLimitPolicy;
  const hourly = byModelAndStatus(hours);
  const spendPerDay = perBucket(days, (point) => Number(point.costUnits));
  const answered = perBucket(hours, (point) => (point.status < 300 ? point.requests : 0));
  const refused = perBucket(hours, (point) => (point.status >= 300 ? point.requests : 0));
  const total = (values: number[]) => Math.round(values.reduce((sum, value) => sum + value, 0) * 1e6) / 1e6;
  return (
    <main id="main" tabIndex={-1}>
      <p>
        <a href="#/keys">← All keys</a>
      </p>
      <h1>
        {key.name} <StateBadge apiKey={key} />
      </h1>
      <p class="mono muted">{key.keyId}</p>
      <p class="managed">
        {manager ? (
          <>
            Managed as code by {manager.tool}
            {manager.where ? ` (${manager.where})` : ""}: <code>{manager.name}</code>. Change it there and apply; this console never changes a key.
          </>
        ) : (
          "Created without a client reference. This console never changes a key."
        )}
      </p>
      <section aria-labelledby="policies">
        <h2 id="policies">Policies</h2>
        <dl class="policies">
          <Policy name="Spend">
            <SpendBar apiKey={key} />
            {firstLimitOf(key) ? ` per ${firstLimitOf(key)!.resetPeriod === "never" ? "lifetime" : firstLimitOf(key)!.resetPeriod} window` : ""}
            {key.spendWindow?.resetsAt ? `, resets ${dateTime(key.spendWindow.resetsAt)}` : ""}; {units(key.spentUnits)} over its life
          </Policy>
          <Policy name="Rate limits">
            {rates
              ? [
                  rates.requestsPerMinute !== undefined ? `${rates.requestsPerMinute} requests/min` : null,
                  rates.tokensPerMinute !== undefined ? `${rates.tokensPerMinute} tokens/min` : null,
                  rates.maxConcurrentRequests !== undefined ? `${rates.maxConcurrentRequests} in flight` : null,
                ]
                  .filter(Boolean)
                  .join(", ")
              : "none"}
          </Policy>
          <Policy name="Expires">{key.expiresAt ? `${dateTime(key.expiresAt)} (${relative(key.expiresAt)})` : "never"}</Policy>
          <Policy name="Models">{key.modelPolicy.mode === "all" ? "all" : key.modelPolicy.modelIds.join(", ")}</Policy>
          <Policy name="Logging">
            {key.loggingPolicy.storeRequest ? "stores requests" : "no request content"}, {key.loggingPolicy.storeResponse ? "stores responses" : "no response content"},
            kept {key.loggingPolicy.retentionDays} days
          </Policy>
          <Policy name="Labels">
            <Labels labels={key.labels} />
          </Policy>
          <Policy name="Version">
            {key.version}, updated {dateTime(key.updatedAt)}
            {key.rotatedAt ? `, rotated ${dateTime(key.rotatedAt)}` : ""}
            {key.previousSecret === null && key.previousSecretExpiresAt && Date.parse(key.previousSecretExpiresAt) > Date.now()
              ? `; the replaced secret works until ${dateTime(key.previousSecretExpiresAt)}`
              : ""}
          </Policy>
          <Policy name="Last used">{key.lastUsedAt ? `${dateTime(key.lastUsedAt)} (${relative(key.lastUsedAt)})` : "never"}</Policy>
        </dl>
      </section>
      <section aria-labelledby="secrets">
        <h2 id="secrets">Secrets and their clients</h2>
        <Secrets apiKey={key} now={Date.now()} />
      </section>
      <section aria-labelledby="traffic">
        <h2 id="traffic">Spend and traffic</h2>
        <Chart
          title="Spend per day, last 30 days (credits)"
          times={bucketStarts(days)}
          series={[{ label: "spend", values: spendPerDay, stroke: "#1d4ed8" }]}
          summary={`Spend over the last 30 days: ${total(spendPerDay)} credits`}
        />
        <Chart
          title="Requests per hour, last 24 hours"
          times={bucketStarts(hours)}
          series={[
            { label: "answered (2xx)", values: answered, stroke: "#15803d" },
            { label: "refused or failed", values: refused, stroke: "#b91c1c" },
          ]}
          summary={`Requests in the last 24 hours: ${total(answered)} answered, ${total(refused)} refused or failed`}
        />
        <Table
          class="by-model"
          caption="Requests in the last 24 hours, by model and status"
          columns={[
            { title: "Model", cell: (row) => row.model },
            { title: "Status", cell: (row) => row.status },
            { title: "Requests", cell: (row) => row.requests },
            { title: "Cost", cell: (row) => units(String(Math.round(row.cost * 1e6) / 1e6)) },
          ]}
          rows={hourly}
          rowKey={(row) => `${row.model}-${row.status}`}
        />
      </section>
      <section aria-labelledby="logs">
        <h2 id="logs">Recent requests</h2>
        {logs.data.length === 0 ? (
          <p class="muted">No requests logged (or none within the logging policy's retention).</p>
        ) : (
          <Table
            class="logs"
            columns={[
              { title: "Time", cell: (entry) => dateTime(entry.createdAt) },
              { title: "Model", cell: (entry) => entry.model },
              { title: "Status", cell: (entry) => entry.status },
              { title: "Cost", cell: (entry) => units(entry.costUnits) },
              { title: "Request", class: "content", cell: (entry) => entry.request?.input ?? <span class="muted">not stored</span> },
              { title: "Response", class: "content", cell: (entry) => entry.response?.text ?? <span class="muted">not stored</span> },
            ]}
            rows={logs.data}
            rowKey={(entry) => entry.id}
          />
        )}
      </section>
    </main>
  );
}
