import type { ApiKey, SpendWindowState, Team } from "@gateway-keys/contract";
import { SpendBar } from "../components/spend-bar";
import { Labels, StateBadge } from "../components/state";
import { Table } from "../components/table";
import { dateTime, share, units } from "../format";

/** What the team page shows: the team, and the owner's keys in it. */
export interface TeamView {
  team: Team;
  keys: ApiKey[];
}

/** One window of a spend policy: a meter of its spend against its limit, and when it starts again. */
function WindowMeter({ window }: { window: SpendWindowState }) {
  const ratio = share(window.spentUnits, window.limitUnits);
  const level = ratio >= 1 ? "full" : ratio >= 0.8 ? "high" : "ok";
  return (
    <span class="spend">
      <meter class={`bar ${level}`} min={0} max={1} low={0.8} high={0.99} optimum={0} value={ratio} aria-label={`${window.resetPeriod}: spent ${units(window.spentUnits)} of ${units(window.limitUnits)}`} />
      <span>
        {units(window.spentUnits)} / {units(window.limitUnits)}
      </span>
    </span>
  );
}

/** The owner's teams: their windows' spend and how many keys each has. */
export function TeamsPage({ teams }: { teams: Team[] }) {
  return (
    <main id="main" tabIndex={-1}>
      <h1>Teams</h1>
      {teams.length === 0 ? (
        <p class="muted">No teams yet. Teams are declared as code (Pulumi, Terraform) or through the account API.</p>
      ) : (
        <Table
          class="teams"
          caption="Teams, oldest first: each window of their spend policy, what their keys spent in it together"
          columns={[
            { title: "Team", cell: (team) => <a href={`#/teams/${encodeURIComponent(team.teamId)}`}>{team.name}</a> },
            { title: "Labels", cell: (team) => <Labels labels={team.labels} /> },
            { title: "Keys", cell: (team) => String(team.keyCount) },
            {
              title: "Spend",
              cell: (team) =>
                team.spendWindows.length === 0 ? (
                  <span class="muted">no limit</span>
                ) : (
                  team.spendWindows.map((window) => (
                    <div key={window.resetPeriod} data-window={window.resetPeriod}>
                      {window.resetPeriod}: <WindowMeter window={window} />
                    </div>
                  ))
                ),
            },
          ]}
          rows={teams}
          rowKey={(team) => team.teamId}
          rowData={(team) => ({ "data-team": team.teamId })}
        />
      )}
    </main>
  );
}

/** One team: its windows, its rate limit and model ceiling, and its keys. */
export function TeamPage({ view }: { view: TeamView }) {
  const { team, keys } = view;
  const rates = team.rateLimitPolicy;
  return (
    <main id="main" tabIndex={-1}>
      <p>
        <a href="#/teams">← Teams</a>
      </p>
      <h1>{team.name}</h1>
      <p class="muted">
        {team.teamId} · version {team.version} · created {dateTime(team.createdAt)} · <Labels labels={team.labels} />
      </p>
      <section aria-labelledby="windows">
        <h2 id="windows">Spend windows</h2>
        {team.spendWindows.length === 0 ? (
          <p class="muted">No spend limit: its keys are held to their own limits only.</p>
        ) : (
          <Table
            class="team-windows"
            caption="What the team's keys spent together in each window of its spend policy"
            columns={[
              { title: "Window", cell: (window) => window.resetPeriod },
              { title: "Spent", cell: (window) => <WindowMeter window={window} /> },
              { title: "Started", cell: (window) => dateTime(window.startedAt) },
              { title: "Resets", cell: (window) => (window.resetsAt ? dateTime(window.resetsAt) : "never (lifetime)") },
            ]}
            rows={team.spendWindows}
            rowKey={(window) => window.resetPeriod}
            rowData={(window) => ({ "data-window": window.resetPeriod })}
          />
        )}
      </section>
      <section aria-labelledby="team-policies">
        <h2 id="team-policies">Shared limits</h2>
        <dl class="policies">
          <dt>Rate limits</dt>
          <dd>
            {rates
              ? [
                  rates.requestsPerMinute !== undefined && `${rates.requestsPerMinute} requests/min`,
                  rates.tokensPerMinute !== undefined && `${rates.tokensPerMinute} tokens/min`,
                  rates.maxConcurrentRequests !== undefined && `${rates.maxConcurrentRequests} in flight`,
                ]
                  .filter(Boolean)
                  .join(", ")
              : "none"}
          </dd>
          <dt>Models</dt>
          <dd>{team.modelPolicy.mode === "all" ? "all models" : team.modelPolicy.modelIds.join(", ")}</dd>
        </dl>
      </section>
      <section aria-labelledby="team-keys">
        <h2 id="team-keys">Keys ({keys.length})</h2>
        {keys.length === 0 ? (
          <p class="muted">No keys in this team.</p>
        ) : (
          <Table
            class="team-keys"
            columns={[
              { title: "Key", cell: (key) => <a href={`#/keys/${encodeURIComponent(key.keyId)}`}>{key.name}</a> },
              { title: "State", cell: (key) => <StateBadge apiKey={key} /> },
              { title: "Own spend", cell: (key) => <SpendBar apiKey={key} /> },
            ]}
            rows={keys}
            rowKey={(key) => key.keyId}
            rowData={(key) => ({ "data-key": key.keyId })}
          />
        )}
      </section>
    </main>
  );
}
