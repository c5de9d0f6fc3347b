import type { AuditEvent } from "@gateway-keys/contract";
import { Table } from "../components/table";
import { dateTime } from "../format";

/** What changed, as one line: `name: "a" → "b"; labels: {…} → {…}` (values as JSON, never a secret: the gateway records none). */
function changesLine(event: AuditEvent): string {
  const fields = Object.entries(event.changes);
  if (fields.length === 0) return "—";
  return fields.map(([field, change]) => `${field}: ${JSON.stringify(change.old)} → ${JSON.stringify(change.new)}`).join("; ");
}

/** The owner's audit trail, newest first: who changed which key or webhook, how, and whether the chain is intact. */
export function AuditPage({ events, valid }: { events: AuditEvent[]; valid: boolean }) {
  return (
    <main id="main" tabIndex={-1}>
      <h1>Audit trail</h1>
      <p class={valid ? "chain-valid" : "chain-broken error"} data-chain={valid ? "valid" : "broken"} role={valid ? undefined : "alert"}>
        {valid ? "The chain of events is intact." : "The chain of events is broken: an event was edited, inserted or removed."}
      </p>
      {events.length === 0 ? (
        <p class="muted">No account changes yet.</p>
      ) : (
        <Table
          class="audit-events"
          caption="The latest 100 account changes, newest first"
          columns={[
            { title: "Time", cell: (event) => dateTime(event.time) },
            { title: "Action", cell: (event) => event.action },
            { title: "Key or webhook", cell: (event) => (event.keyId ? <a href={`#/keys/${encodeURIComponent(event.keyId)}`}>{event.keyId}</a> : (event.webhookId ?? "—")) },
            { title: "Actor", cell: (event) => `${event.actor.kind} ${event.actor.hint ?? event.actor.id}` },
            { title: "Version", cell: (event) => `${event.versionBefore ?? "—"} → ${event.versionAfter ?? "—"}` },
            { title: "Changes", cell: changesLine, class: "changes" },
          ]}
          rows={events}
          rowKey={(event) => event.id}
          rowData={(event) => ({ "data-event": event.id, "data-action": event.action })}
        />
      )}
    </main>
  );
}
