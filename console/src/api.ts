import type { ApiKey, AuditEvent, AuditVerification, ListPage, LogEntry, Team, UsageSummary, UsageTimeline } from "@gateway-keys/contract";

/**
 * Who is signed in, as `/console/session` says: a provisioning key (`hint`), or a person signed in
 * through OpenID Connect (`subject`, `email`) with the owners they may view — of those in `teams`,
 * only the teams named there and their keys.
 */
export type Session = { ownerId: string; owners: string[]; teams: Record<string, string[]>; expiresAt: string } & (
  | { kind: "key"; hint: string }
  | { kind: "person"; subject: string; email: string | null }
);

/** How this gateway lets people sign in. */
export interface SignInMethods {
  provisioningKey: boolean;
  oidc: boolean;
}

/**
 * The owner the page shows, from its address (`/console?owner=search`): a person may view several.
 * Sent on every read as `x-console-owner`; the gateway refuses an owner the session may not view.
 */
export function chosenOwner(): string | null {
  return new URLSearchParams(location.search).get("owner");
}

/** A failed call: the gateway's error code and message, or the HTTP status when the body was not ours. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Every read goes to the same origin with the session cookie (HttpOnly: no script ever holds the
 * provisioning key or the session). The console sends no request that changes a key.
 */
async function call<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
  const owner = chosenOwner();
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(owner === null ? {} : { "x-console-owner": owner }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ConsoleError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? `The gateway answered ${response.status}.`);
  }
  return parsed as T;
}

export const api = {
  session: () => call<Session>("GET", "/console/session"),
  signInMethods: () => call<SignInMethods>("GET", "/console/sign-in-methods"),
  signIn: (provisioningKey: string) => call<Session>("POST", "/console/session", { provisioningKey }),
  signOut: () => call<void>("DELETE", "/console/session"),
  /** Every key of the owner, a page of 100 at a time. */
  async keys(): Promise<ApiKey[]> {
    const keys: ApiKey[] = [];
    let after: string | null = null;
    do {
      const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
      const page: ListPage<ApiKey> = await call("GET", `/v1/account/api-keys?limit=100${query}`);
      keys.push(...page.data);
      after = page.has_more ? page.next_cursor : null;
    } while (after !== null);
    return keys;
  },
  key: (keyId: string) => call<ApiKey>("GET", `/v1/account/api-keys/${encodeURIComponent(keyId)}`),
  /** Every team of the owner, a page of 100 at a time. */
  async teams(): Promise<Team[]> {
    const teams: Team[] = [];
    let after: string | null = null;
    do {
      const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
      const page: ListPage<Team> = await call("GET", `/v1/account/teams?limit=100${query}`);
      teams.push(...page.data);
      after = page.has_more ? page.next_cursor : null;
    } while (after !== null);
    return teams;
  },
  team: (teamId: string) => call<Team>("GET", `/v1/account/teams/${encodeURIComponent(teamId)}`),
  usage: () => call<UsageSummary>("GET", "/v1/account/usage/summary"),
  timeline: (bucket: "hour" | "day", keyId?: string) =>
    call<UsageTimeline>("GET", `/v1/account/usage/timeline?bucket=${bucket}${keyId ? `&keyId=${encodeURIComponent(keyId)}` : ""}`),
  /** The latest 100 account changes, newest first. */
  auditEvents: () => call<ListPage<AuditEvent>>("GET", "/v1/account/audit-events?limit=100"),
  auditVerify: () => call<AuditVerification>("GET", "/v1/account/audit-events/verify"),
  logs: (keyId: string) => call<ListPage<LogEntry>>("GET", `/v1/account/logs?limit=20&keyId=${encodeURIComponent(keyId)}`),
};
