import type { ApiKey, PreviousSecretUse, SecretClient, SecretUse } from "@gateway-keys/contract";
// The rule alone, without the contract's schemas: the console bundles no zod.
import { previousSecretInUse } from "@gateway-keys/contract/dist/secret-use-rule";
import { dateTime, duration, relative } from "../format";
import { Table } from "./table";

/** An instant as a person wants it: how long ago or ahead, and when exactly. */
function At({ iso, now }: { iso: string | null; now: number }) {
  if (iso === null) return <>never</>;
  return (
    <time dateTime={iso} title={iso}>
      {relative(iso, now)} ({dateTime(iso)})
    </time>
  );
}

function Clients({ use, now, caption, sinceRotation }: { use: SecretUse; now: number; caption: string; sinceRotation: boolean }) {
  if (use.clients.length === 0) return <p class="muted">No client seen with this secret.</p>;
  return (
    <Table
      class="clients"
      caption={caption}
      columns={[
        { title: "User agent", class: "agent", cell: (client: SecretClient) => client.userAgent ?? <span class="muted">none sent</span> },
        { title: "Address", cell: (client) => client.address ?? <span class="muted">unknown</span> },
        { title: "First seen", cell: (client) => <At iso={client.firstSeenAt} now={now} /> },
        { title: "Last seen", cell: (client) => <At iso={client.lastSeenAt} now={now} /> },
        {
          title: sinceRotation ? "Requests since rotation" : "Requests",
          cell: (client) => (sinceRotation && client.requests === 0 ? <span class="muted">0: not since the rotation</span> : client.requests),
        },
      ]}
      rows={use.clients}
      rowKey={(client) => `${client.userAgent}|${client.address}`}
    />
  );
}

const RETIRED_BECAUSE = { idle: "it went unused for its idle time", expired: "its grace ended", revoked: "the key was revoked", rotated: "a newer rotation replaced it" } as const;

/** Where the previous secret stands: working until when (and what may end it sooner), or when and why it stopped. */
function PreviousState({ previous, now }: { previous: PreviousSecretUse; now: number }) {
  if (previous.retiredAt !== null) {
    const reason = RETIRED_BECAUSE[previous.retiredReason as keyof typeof RETIRED_BECAUSE] ?? previous.retiredReason ?? "it stopped";
    return (
      <>
        Retired <At iso={previous.retiredAt} now={now} />: {reason}.
      </>
    );
  }
  if (Date.parse(previous.expiresAt) <= now) {
    return (
      <>
        Stopped <At iso={previous.expiresAt} now={now} />: its grace ended.
      </>
    );
  }
  return (
    <>
      Works until <At iso={previous.expiresAt} now={now} />
      {previous.retireWhenIdleSeconds !== null ? `, or until it has gone unused for ${duration(previous.retireWhenIdleSeconds)}` : ""}.
      {previous.inUseWarningAt !== null && Date.parse(previous.inUseWarningAt) > now ? (
        <>
          {" "}
          A warning goes out <At iso={previous.inUseWarningAt} now={now} /> if it is still in use.
        </>
      ) : null}
    </>
  );
}

function Figures({ use, now, children }: { use: SecretUse; now: number; children?: preact.ComponentChildren }) {
  return (
    <dl class="policies">
      <dt>Hint</dt>
      <dd class="mono">{use.hint}</dd>
      {children}
      <dt>Last used</dt>
      <dd>
        <At iso={use.lastUsedAt} now={now} />
      </dd>
      <dt>Requests since rotation</dt>
      <dd>{use.requestsSinceRotation}</dd>
    </dl>
  );
}

/**
 * The key's two secrets as a person checks a rotation: which clients still present the old one,
 * when each was last used, and when the old one stops — with a warning while clients would be cut off.
 */
export function Secrets({ apiKey: key, now }: { apiKey: ApiKey; now: number }) {
  const current = key.currentSecret;
  const previous = key.previousSecret;
  if (current === null) {
    return <p class="muted">This gateway does not report which secret clients use (extension secret_use).</p>;
  }
  const inUse = previousSecretInUse(previous, now);
  // A client of the secret from before the rotation stays listed with 0 requests since: only those that presented it since still use it.
  const clients = previous?.clients.filter((client) => client.requests > 0).length ?? 0;
  const who = clients === 0 ? "The previous secret is still in use" : clients === 1 ? "1 client still uses the previous secret" : `${clients} clients still use the previous secret`;
  return (
    <>
      {inUse && previous ? (
        <p class="warning" role="status" data-warning="previous-secret-in-use">
          <strong>
            {who}; it stops {relative(previous.expiresAt, now)}
          </strong>{" "}
          ({dateTime(previous.expiresAt)}). Give them the current secret before then, or they get 401.
        </p>
      ) : null}
      <div class="secrets">
        <section class="secret" aria-labelledby="current-secret">
          <h3 id="current-secret">Current secret</h3>
          <Figures use={current} now={now}>
            <dt>Issued</dt>
            <dd>
              <At iso={key.rotatedAt ?? key.createdAt} now={now} />
            </dd>
          </Figures>
          <Clients use={current} now={now} sinceRotation={false} caption="Clients using the current secret, most recent first" />
        </section>
        <section class="secret" aria-labelledby="previous-secret">
          <h3 id="previous-secret">Previous secret</h3>
          {previous === null ? (
            <p class="muted">{key.rotatedAt === null ? "None: the key was never rotated." : "None: the last rotation had no grace period, so the old secret stopped at once."}</p>
          ) : (
            <>
              <Figures use={previous} now={now}>
                <dt>State</dt>
                <dd data-previous-state>
                  <PreviousState previous={previous} now={now} />
                </dd>
              </Figures>
              <Clients use={previous} now={now} sinceRotation caption="Clients of the previous secret, most recent first: those with requests since the rotation still use it" />
            </>
          )}
        </section>
      </div>
    </>
  );
}
