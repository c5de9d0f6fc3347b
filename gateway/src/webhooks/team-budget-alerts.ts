import { formatUnits, spendWindowOf } from "@gateway-keys/contract";
import type { Ledger } from "../metering/ledger";
import type { TeamCache } from "../store/team-cache";
import type { Store, StoredTeam } from "../store/types";
import { thresholdMicros } from "./alerts";
import { enqueueEvent } from "./outbox";
import { ThresholdWatches, type ThresholdCheck, type WatchedWindow } from "./threshold-watches";

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Sends `team.budget_threshold`, as keys' alerts are sent (threshold-watches.ts): each settled
 * charge of a key in a team with thresholds goes to a watch of each window of the team's spend
 * policy, which reads the window from the database (what all the team's keys spent, through every
 * process) only when the next threshold may be reached or its estimate is stale, and sends each
 * threshold the window reached once — its alert mark (the team, the window's period and start, the
 * threshold) is claimed in the same unit of work as the event, so two processes, or one after a
 * restart, never send one twice.
 */
export class TeamBudgetAlerts {
  readonly #teams: TeamCache;
  readonly #watches: ThresholdWatches<StoredTeam>;
  /** Called once an alert is committed (the deliverer's nudge). */
  onSent: () => void = () => undefined;

  constructor(store: Store, teams: TeamCache, now: () => number, refreshMs = 1000) {
    this.#teams = teams;
    this.#watches = new ThresholdWatches<StoredTeam>(
      (team, window, alreadySent) => sendCrossedTeamThresholds(store, team, window, now, () => this.onSent(), alreadySent),
      refreshMs,
    );
  }

  /** A settled charge of `micros` for a request that began at `at`, charged to the team `teamId` of `ownerId`. */
  charged(ownerId: string, teamId: string, micros: bigint, at: number): void {
    const cached = this.#teams.cached(teamId);
    if (cached) {
      if (cached.ownerId === ownerId) this.#chargedTo(cached, micros, at);
      return;
    }
    // Not cached (just changed): read once; a team gone has nothing to send.
    void this.#teams.find(ownerId, teamId).then(
      (team) => team && this.#chargedTo(team, micros, at),
      () => undefined,
    );
  }

  #chargedTo(team: StoredTeam, micros: bigint, at: number): void {
    const thresholds = team.alerts.budgetAlertThresholds;
    if (thresholds.length === 0) return;
    for (const window of team.spendWindows) {
      const { start } = spendWindowOf(window.resetPeriod, at, team.createdAt);
      this.#watches.charged(`${team.id}\0${window.resetPeriod}`, team, { resetPeriod: window.resetPeriod, limitMicros: window.limitMicros, start, thresholds }, micros);
    }
  }

  /** Stops the trailing checks (the app is closing). */
  close(): void {
    this.#watches.close();
  }
}

/**
 * Reads the team's spend in `window` (since its `start`) and sends each
 * threshold it reached past the `alreadySent` lowest, each once. Returns the spend read and how
 * many thresholds (from the lowest) it reached.
 */
export async function sendCrossedTeamThresholds(
  store: Store,
  team: StoredTeam,
  window: WatchedWindow,
  now: () => number,
  onSent: () => void = () => undefined,
  alreadySent = 0,
): Promise<ThresholdCheck> {
  const { start, limitMicros, resetPeriod, thresholds } = window;
  const spent = await store.teamSpentSince(team.id, start);
  const crossed = thresholds.filter((threshold) => spent >= thresholdMicros(limitMicros, threshold));
  const { startedAt, endsAt } = spendWindowOf(resetPeriod, start, team.createdAt);
  for (const threshold of crossed.slice(alreadySent)) {
    const fresh = await store.transaction(async (tx) => {
      // One mark per team, window (its period and start) and threshold: a daily and a monthly window may start together.
      if (!(await tx.events.claimAlertMark(team.id, `team_budget_threshold:${resetPeriod}`, start, Math.round(threshold * 1_000_000), now()))) return false;
      await enqueueEvent(tx, {
        ownerId: team.ownerId,
        type: "team.budget_threshold",
        keyLabels: team.labels,
        data: {
          teamId: team.id,
          ownerId: team.ownerId,
          name: team.name,
          labels: team.labels,
          threshold,
          limitUnits: formatUnits(limitMicros),
          spentUnits: formatUnits(spent),
          resetPeriod,
          windowStartedAt: iso(startedAt),
          windowResetsAt: endsAt === null ? null : iso(endsAt),
        },
        at: now(),
      });
      return true;
    });
    if (fresh) onSent();
  }
  return { spent, crossed: crossed.length };
}

/** The ledger with team budget alerts: each settled charge of a key in a team goes to {@link TeamBudgetAlerts} once committed. */
export function teamAlertingLedger(ledger: Ledger, alerts: TeamBudgetAlerts): Ledger {
  return {
    headroom: (key, at) => ledger.headroom(key, at),
    refusal: (key, micros, at) => ledger.refusal(key, micros, at),
    reserve: (key, micros, at) => ledger.reserve(key, micros, at),
    async settle(reservation, entry, outcome) {
      await ledger.settle(reservation, entry, outcome);
      if (entry.teamId !== null && entry.costMicros > 0n) alerts.charged(entry.ownerId, entry.teamId, entry.costMicros, entry.createdAt);
    },
    recordUncharged: (entry, outcome) => ledger.recordUncharged(entry, outcome),
  };
}
