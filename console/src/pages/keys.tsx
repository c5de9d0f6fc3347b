import type { ApiKey, UsageSummary } from "@gateway-keys/contract";
import { useMemo, useState } from "preact/hooks";
import { firstLimitOf, SpendBar } from "../components/spend-bar";
import { Labels, StateBadge, stateOf } from "../components/state";
import { dateTime, managedBy, relative, share } from "../format";

type SortKey = "name" | "state" | "spend" | "resets" | "expires" | "lastUsed";

const COLUMNS: { key: SortKey | null; title: string }[] = [
  { key: "name", title: "Name" },
  { key: "state", title: "State" },
  { key: null, title: "Labels" },
  { key: "spend", title: "Spend in window" },
  { key: "resets", title: "Window resets" },
  { key: "expires", title: "Expires" },
  { key: "lastUsed", title: "Last used" },
  { key: null, title: "Rotation grace" },
  { key: null, title: "Managed by" },
];

function sortValue(key: ApiKey, by: SortKey): string | number {
  switch (by) {
    case "name":
      return key.name.toLowerCase();
    case "state":
      return stateOf(key);
    case "spend":
      return key.spendPolicy ? share(key.spendWindow?.spentUnits ?? key.spentUnits, firstLimitOf(key)!.limitUnits) : -1;
    case "resets":
      return key.spendWindow?.resetsAt ?? "~";
    case "expires":
      return key.expiresAt ?? "~";
    case "lastUsed":
      return key.lastUsedAt ?? "";
  }
}

/** Until when the secret a rotation replaced keeps working, while it still does. */
function graceLeft(key: ApiKey, now: number): string {
  if (key.previousSecretExpiresAt === null || Date.parse(key.previousSecretExpiresAt) <= now) return "—";
  return `open, ends ${relative(key.previousSecretExpiresAt, now)}`;
}

/** Every key of the owner: sortable by column, filterable by text (name, id, label) and state. */
export function KeysPage({ keys, usage }: { keys: ApiKey[]; usage: UsageSummary }) {
  const [filter, setFilter] = useState("");
  const [state, setState] = useState("all");
  const [sort, setSort] = useState<{ by: SortKey; descending: boolean }>({ by: "name", descending: false });
  const now = Date.now();
  const requests = useMemo(() => new Map(usage.byKey.map((line) => [line.keyId, line.requests])), [usage]);
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const matching = keys.filter(
      (key) =>
        (state === "all" || stateOf(key) === state) &&
        (needle === "" ||
          key.name.toLowerCase().includes(needle) ||
          key.keyId.toLowerCase().includes(needle) ||
          Object.entries(key.labels).some(([name, value]) => `${name}=${value}`.toLowerCase().includes(needle))),
    );
    const sign = sort.descending ? -1 : 1;
    return matching.sort((a, b) => {
      const [x, y] = [sortValue(a, sort.by), sortValue(b, sort.by)];
      return x < y ? -sign : x > y ? sign : 0;
    });
  }, [keys, filter, state, sort]);

  return (
    <main id="main" tabIndex={-1}>
      <h1>Keys</h1>
      <p class="muted">
        {keys.length} keys. Read-only: change a key in the code that declares it (its “Managed by” column), then apply.
      </p>
      <div class="filters">
        <label>
          Filter <input type="search" value={filter} onInput={(event) => setFilter((event.currentTarget as HTMLInputElement).value)} placeholder="name, key id or label" />
        </label>
        <label>
          State{" "}
          <select value={state} onChange={(event) => setState((event.currentTarget as HTMLSelectElement).value)}>
            {["all", "active", "disabled", "expired", "revoked"].map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
      </div>
      <table class="keys">
        <caption class="visually-hidden">Keys, {shown.length} shown</caption>
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th
                key={column.title}
                scope="col"
                aria-sort={column.key === sort.by ? (sort.descending ? "descending" : "ascending") : undefined}
              >
                {column.key === null ? (
                  column.title
                ) : (
                  <button
                    type="button"
                    class="sort"
                    onClick={() => setSort({ by: column.key!, descending: sort.by === column.key ? !sort.descending : false })}
                  >
                    {column.title}
                    {column.key === sort.by ? (sort.descending ? " ▼" : " ▲") : ""}
                  </button>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((key) => {
            const manager = managedBy(key.clientReference);
            return (
              <tr key={key.keyId} data-key-id={key.keyId}>
                <td>
                  <a href={`#/keys/${encodeURIComponent(key.keyId)}`}>{key.name}</a>
                  <div class="muted mono">{key.keyId}</div>
                </td>
                <td>
                  <StateBadge apiKey={key} />
                </td>
                <td>
                  <Labels labels={key.labels} />
                </td>
                <td>
                  <SpendBar apiKey={key} />
                  <div class="muted">{requests.get(key.keyId) ?? 0} requests</div>
                </td>
                <td>{key.spendWindow?.resetsAt ? dateTime(key.spendWindow.resetsAt) : "never"}</td>
                <td>{key.expiresAt ? dateTime(key.expiresAt) : "never"}</td>
                <td>{relative(key.lastUsedAt, now)}</td>
                <td>{graceLeft(key, now)}</td>
                <td>{manager ? <span title={key.clientReference ?? ""}>{manager.tool}{manager.where ? ` ${manager.where}` : ""}: {manager.name}</span> : <span class="muted">—</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </main>
  );
}
