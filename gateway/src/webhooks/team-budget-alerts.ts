import { formatUnits, spendWindowOf } from "@gateway-keys/contract";
import type { Ledger } from "../metering/ledger";
import type { TeamCache } from "../store/team-cache";
import type { Store, StoredTeam } from "../store/types";
import { thresholdMicros } from "./alerts";
import { enqueueEvent } from "./outbox";

const iso = (ms: number): string => new Date(ms).toISOString();

/** What this process knows of one team's checks. */
interface TeamWatch {
  checking: boolean;
  /** A charge came while a check ran: check again when it ends. */
  dirty: boolean;
  /** The latest request time a charge was made at: the windows checked are those that hold it. */
  at: number;
}

/**
 * Sends `team.budget_threshold`: after a charge of a key in a team with thresholds, each window of
 * the team's spend policy is read from the database (what all its keys spent, through every
 * process), and each threshold a window reached is sent once — its alert mark (the team, the
 * window's period and start, the threshold) is claimed in the same unit of work as the event, so
 * two processes, or one after a restart, never send one twice. Checks of one team run one at a
 * time; charges during a check lead to one more.
 */
export class TeamBudgetAlerts {
  readonly #store: Store;
  readonly #teams: TeamCache;
  readonly #now: () => number;
  readonly #watches = new Map<string, TeamWatch>();
  #closed = false;
  /** Called once an alert is committed (the deliverer's nudge). */
  onSent: () => void = () => undefined;

  constructor(store: Store, teams: TeamCache, now: () => number) {
    this.#store = store;
    this.#teams = teams;
    this.#now = now;
  }

  /** A settled charge of a request that began at `at`, charged to the team `teamId` of `ownerId`. */
  charged(ownerId: string, teamId: string, at: number): void {
    if (this.#closed) return;
    // A team known to have no thresholds needs no check (the cache forgets it when it changes).
    if (this.#teams.cached(teamId)?.alerts.budgetAlertThresholds.length === 0) return;
    let watch = this.#watches.get(teamId);
    if (!watch) {
      watch = { checking: false, dirty: false, at };
      this.#watches.set(teamId, watch);
    }
    watch.at = Math.max(watch.at, at);
    if (watch.checking) {
      watch.dirty = true;
      return;
    }
    void this.#check(ownerId, teamId, watch);
  }

  close(): void {
    this.#closed = true;
  }

  async #check(ownerId: string, teamId: string, watch: TeamWatch): Promise<void> {
    watch.checking = true;
    try {
      do {
        watch.dirty = false;
        const team = await this.#teams.find(ownerId, teamId);
        if (!team || team.alerts.budgetAlertThresholds.length === 0) break;
        await sendCrossedTeamThresholds(this.#store, team, watch.at, this.#now, this.onSent);
      } while (watch.dirty && !this.#closed);
    } catch {
      // Not sent now: the next charge checks again, and the marks keep it once-only.
    } finally {
      watch.checking = false;
      if (!watch.dirty) this.#watches.delete(teamId);
    }
  }
}

/** Reads each window of the team's policy that holds `at` and sends each threshold it reached, once. */
export async function sendCrossedTeamThresholds(store: Store, team: StoredTeam, at: number, now: () => number, onSent: () => void = () => undefined): Promise<number> {
  let sent = 0;
  for (const window of team.spendWindows) {
    const { start, startedAt, endsAt } = spendWindowOf(window.resetPeriod, at, team.createdAt);
    const spent = await store.teamSpentSince(team.id, start);
    for (const threshold of team.alerts.budgetAlertThresholds) {
      if (spent < thresholdMicros(window.limitMicros, threshold)) continue;
      const fresh = await store.transaction(async (tx) => {
        // One mark per team, window (its period and start) and threshold: a daily and a monthly window may start together.
        if (!(await tx.events.claimAlertMark(team.id, `team_budget_threshold:${window.resetPeriod}`, start, Math.round(threshold * 1_000_000), now()))) return false;
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
            limitUnits: formatUnits(window.limitMicros),
            spentUnits: formatUnits(spent),
            resetPeriod: window.resetPeriod,
            windowStartedAt: iso(startedAt),
            windowResetsAt: endsAt === null ? null : iso(endsAt),
          },
          at: now(),
        });
        return true;
      });
      if (fresh) {
        sent++;
        onSent();
      }
    }
  }
  return sent;
}

/** The ledger with team budget alerts: each settled charge of a key in a team goes to {@link TeamBudgetAlerts} once committed. */
export function teamAlertingLedger(ledger: Ledger, alerts: TeamBudgetAlerts): Ledger {
  return {
    headroom: (key, at) => ledger.headroom(key, at),
    refusal: (key, micros, at) => ledger.refusal(key, micros, at),
    reserve: (key, micros, at) => ledger.reserve(key, micros, at),
    async settle(reservation, entry, outcome) {
      await ledger.settle(reservation, entry, outcome);
      if (entry.teamId !== null && entry.costMicros > 0n) alerts.charged(entry.ownerId, entry.teamId, entry.createdAt);
    },
    recordUncharged: (entry, outcome) => ledger.recordUncharged(entry, outcome),
  };
}
