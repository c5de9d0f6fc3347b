import type { ApiKey, AuditEvent, Team, UsageSummary, UsageTimeline } from "@gateway-keys/contract";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, chosenOwner, ConsoleError, type Session } from "./api";
import { AuditPage } from "./pages/audit";
import { KeyPage, type KeyView } from "./pages/key";
import { KeysPage } from "./pages/keys";
import { SignIn } from "./pages/sign-in";
import { TeamPage, TeamsPage, type TeamView } from "./pages/teams";
import { UsagePage } from "./pages/usage";
import "./app.css";

/** The pages, by the URL's hash: `#/keys`, `#/keys/<keyId>`, `#/teams`, `#/teams/<teamId>`, `#/usage`, `#/audit`. */
type Route = { page: "keys" } | { page: "key"; keyId: string } | { page: "teams" } | { page: "team"; teamId: string } | { page: "usage" } | { page: "audit" };

function routeOf(hash: string): Route {
  const team = /^#\/teams\/([^/]+)$/.exec(hash);
  if (team) {
    try {
      return { page: "team", teamId: decodeURIComponent(team[1]!) };
    } catch {
      return { page: "teams" };
    }
  }
  if (hash === "#/teams") return { page: "teams" };
  const key = /^#\/keys\/([^/]+)$/.exec(hash);
  if (key) {
    try {
      return { page: "key", keyId: decodeURIComponent(key[1]!) };
    } catch {
      // Not a key id a link of ours would write: the list instead.
      return { page: "keys" };
    }
  }
  if (hash === "#/audit") return { page: "audit" };
  return hash === "#/usage" ? { page: "usage" } : { page: "keys" };
}

type Loaded =
  | { page: "keys"; keys: ApiKey[]; usage: UsageSummary }
  | { page: "key"; view: KeyView }
  | { page: "teams"; teams: Team[] }
  | { page: "team"; view: TeamView }
  | { page: "usage"; usage: UsageSummary; days: UsageTimeline }
  | { page: "audit"; events: AuditEvent[]; valid: boolean };

async function load(route: Route): Promise<Loaded> {
  switch (route.page) {
    case "keys": {
      const [keys, usage] = await Promise.all([api.keys(), api.usage()]);
      return { page: "keys", keys, usage };
    }
    case "key": {
      const [apiKey, days, hours, logs] = await Promise.all([
        api.key(route.keyId),
        api.timeline("day", route.keyId),
        api.timeline("hour", route.keyId),
        api.logs(route.keyId),
      ]);
      return { page: "key", view: { apiKey, days, hours, logs } };
    }
    case "teams":
      return { page: "teams", teams: await api.teams() };
    case "team": {
      const [team, keys] = await Promise.all([api.team(route.teamId), api.keys()]);
      return { page: "team", view: { team, keys: keys.filter((key) => key.teamId === team.teamId) } };
    }
    case "usage": {
      const [usage, days] = await Promise.all([api.usage(), api.timeline("day")]);
      return { page: "usage", usage, days };
    }
    case "audit": {
      const [page, verdict] = await Promise.all([api.auditEvents(), api.auditVerify()]);
      return { page: "audit", events: page.data, valid: verdict.valid };
    }
  }
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [route, setRoute] = useState<Route>(routeOf(location.hash));
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.session().then(setSession, () => setSession(null));
    // Only `#/…` is a page; another hash (the skip link's `#main`) moves the focus, not the page.
    const onHash = () => location.hash.startsWith("#/") && setRoute(routeOf(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  useEffect(() => {
    if (!session) return;
    let current = true;
    setLoaded(null);
    setError(null);
    load(route).then(
      (data) => current && setLoaded(data),
      (failure: unknown) => {
        if (!current) return;
        // The session ended (expired, or its provisioning key was revoked): back to sign-in.
        if (failure instanceof ConsoleError && failure.status === 401) setSession(null);
        else setError(failure instanceof Error ? failure.message : String(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [session, route]);

  useEffect(() => {
    document.title = `${{ key: "Key", usage: "Usage", audit: "Audit trail", keys: "Keys", teams: "Teams", team: "Team" }[route.page]} · Gateway console`;
  }, [route]);

  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  // A person may view several owners: the page's address says which (api.ts sends it along).
  const owner = chosenOwner() ?? session.ownerId;
  // A person may view only some teams of an owner: the audit trail is the whole owner's, not theirs.
  const onlyTeams = Object.hasOwn(session.teams, owner) ? session.teams[owner]! : null;
  const signOut = async () => {
    await api.signOut();
    setSession(null);
  };
  return (
    <>
      <header class="top">
        <nav aria-label="Console">
          <a href="#/keys" aria-current={route.page === "keys" || route.page === "key" ? "page" : undefined}>
            Keys
          </a>
          <a href="#/teams" aria-current={route.page === "teams" || route.page === "team" ? "page" : undefined}>
            Teams
          </a>
          <a href="#/usage" aria-current={route.page === "usage" ? "page" : undefined}>
            Usage
          </a>
          {onlyTeams === null && (
            <a href="#/audit" aria-current={route.page === "audit" ? "page" : undefined}>
              Audit
            </a>
          )}
        </nav>
        <span class="who">
          Owner <strong>{owner}</strong>
          {onlyTeams !== null && ` (${onlyTeams.length === 1 ? "one team" : `${onlyTeams.length} teams`} only)`} · {session.kind === "key" ? `key ${session.hint}` : `signed in as ${session.email ?? session.subject} (read-only)`}
          {session.owners.length > 1 && (
            <span class="owners">
              {session.owners
                .filter((other) => other !== owner)
                .map((other) => (
                  <a key={other} href={`?owner=${encodeURIComponent(other)}${location.hash}`}>
                    View {other}
                  </a>
                ))}
            </span>
          )}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      {error ? (
        <main id="main" tabIndex={-1}>
          <p class="error" role="alert">
            {error}
          </p>
        </main>
      ) : loaded === null ? (
        <main id="main" tabIndex={-1}>
          <p class="loading">Loading…</p>
        </main>
      ) : loaded.page === "keys" ? (
        <KeysPage keys={loaded.keys} usage={loaded.usage} />
      ) : loaded.page === "key" ? (
        <KeyPage view={loaded.view} />
      ) : loaded.page === "teams" ? (
        <TeamsPage teams={loaded.teams} />
      ) : loaded.page === "team" ? (
        <TeamPage view={loaded.view} />
      ) : loaded.page === "audit" ? (
        <AuditPage events={loaded.events} valid={loaded.valid} />
      ) : (
        <UsagePage usage={loaded.usage} days={loaded.days} />
      )}
    </>
  );
}

render(<App />, document.getElementById("app")!);
