import type { ApiKey } from "@gateway-keys/contract";

/** A key's state as a person reads it: revoked, expired (whatever its state), disabled or active. */
export function stateOf(key: ApiKey): "revoked" | "expired" | "disabled" | "active" {
  if (key.state === "revoked") return "revoked";
  if (key.expired) return "expired";
  return key.state === "disabled" ? "disabled" : "active";
}

export function StateBadge({ apiKey }: { apiKey: ApiKey }) {
  const state = stateOf(apiKey);
  return <span class={`badge ${state}`}>{state}</span>;
}

export function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="labels">
      {entries.map(([name, value]) => (
        <li key={name}>
          {name}={value}
        </li>
      ))}
    </ul>
  );
}
