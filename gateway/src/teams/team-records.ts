import { TEAM_LIMITS, windowStartOf, type CreateTeamParams, type Team, type UpdateTeamParams } from "@gateway-keys/contract";
import { newId } from "../crypto";
import { GatewayError, versionConflict } from "../errors";
import { storedWindowsOf, windowStatesOf, wireSpendPolicy } from "../metering/spend-windows";
import type { TeamTables } from "../store/team-tables";
import type { NewTeam, StoredTeam, TeamUpdate } from "../store/types";

const iso = (ms: number): string => new Date(ms).toISOString();

export function teamNotFound(param = "teamId"): GatewayError {
  // Also the answer for another owner's team: existence is never revealed across owners.
  return new GatewayError("team_not_found", "No team with this id belongs to your account.", { param });
}

/** A new team, ready to insert. */
export function newTeam(ownerId: string, params: CreateTeamParams, now: number): NewTeam {
  return {
    id: newId("team"),
    ownerId,
    name: params.name,
    labels: { ...params.labels },
    spendWindows: storedWindowsOf(params.spendPolicy),
    rateLimitPolicy: params.rateLimitPolicy ?? null,
    modelPolicy: { mode: params.modelPolicy.mode, modelIds: [...params.modelPolicy.modelIds] },
    alerts: { budgetAlertThresholds: [...params.budgetAlertThresholds] },
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

function assertTeamVersion(current: StoredTeam, expectedVersion: number): void {
  if (current.version !== expectedVersion) throw versionConflict("team", expectedVersion, current.version);
}

/** PATCH: the fields present replace the stored ones (policies whole, null clears); the version goes up by one. */
export function applyTeamUpdate(current: StoredTeam, params: UpdateTeamParams, now: number): TeamUpdate {
  assertTeamVersion(current, params.expectedVersion);
  const { seq: _seq, id: _id, ownerId: _owner, createdAt: _created, ...next } = current;
  next.version = current.version + 1;
  next.updatedAt = now;
  if (params.name !== undefined) next.name = params.name;
  if (params.labels !== undefined) next.labels = { ...params.labels };
  if (params.spendPolicy !== undefined) next.spendWindows = storedWindowsOf(params.spendPolicy);
  if (params.rateLimitPolicy !== undefined) next.rateLimitPolicy = params.rateLimitPolicy;
  if (params.modelPolicy !== undefined) next.modelPolicy = { mode: params.modelPolicy.mode, modelIds: [...params.modelPolicy.modelIds] };
  if (params.budgetAlertThresholds !== undefined) next.alerts = { budgetAlertThresholds: [...params.budgetAlertThresholds] };
  return next;
}

/**
 * DELETE: refused while keys that are not revoked are in the team, naming some of them, so the
 * keys' limits never change behind their owners' backs.
 */
export async function assertTeamDeletable(teams: TeamTables, current: StoredTeam, expectedVersion: number): Promise<void> {
  assertTeamVersion(current, expectedVersion);
  const keyIds = await teams.memberKeyIds(current.id, TEAM_LIMITS.keysNamedOnRefusal);
  if (keyIds.length > 0) {
    throw new GatewayError(
      "team_not_empty",
      `The team still has keys (${keyIds.join(", ")}${keyIds.length === TEAM_LIMITS.keysNamedOnRefusal ? ", …" : ""}); move them to another team or out of it (PATCH teamId) or revoke them, then delete the team.`,
      { teamId: current.id, keyIds },
    );
  }
}

/** The fields of a team an audit event compares, as the wire names them. */
export function auditedTeamFields(team: StoredTeam): Record<string, unknown> {
  return {
    name: team.name,
    labels: team.labels,
    spendPolicy: wireSpendPolicy(team.spendWindows),
    rateLimitPolicy: team.rateLimitPolicy,
    modelPolicy: team.modelPolicy,
    budgetAlertThresholds: team.alerts.budgetAlertThresholds,
  };
}

/** What the wire record needs beside the stored team: its keys and what its windows spent. */
export interface TeamFigures {
  keyCount(teamId: string): number;
  spentSince(teamId: string, since: number): Promise<bigint>;
}

/** Reads the figures of many teams at once (a list page: one statement for the counts, one for the spend). */
export async function teamFiguresOf(teams: TeamTables, rows: readonly StoredTeam[], now: number): Promise<TeamFigures> {
  const counts = await teams.keyCounts(rows.map((team) => team.id));
  const asked = rows.flatMap((team) => team.spendWindows.map((window) => ({ teamId: team.id, since: windowStartOf(window.resetPeriod, now) })));
  const spent = await teams.spentSinceEach(asked);
  const bySince = new Map(asked.map((one, i) => [`${one.teamId} ${one.since}`, spent[i]!]));
  return {
    keyCount: (teamId) => counts.get(teamId) ?? 0,
    spentSince: async (teamId, since) => bySince.get(`${teamId} ${since}`) ?? (await teams.spentSinceEach([{ teamId, since }]))[0]!,
  };
}

/** The wire record of a stored team at `now`. */
export async function toWireTeam(team: StoredTeam, figures: TeamFigures, now: number): Promise<Team> {
  return {
    object: "team",
    teamId: team.id,
    ownerId: team.ownerId,
    name: team.name,
    labels: { ...team.labels },
    spendPolicy: wireSpendPolicy(team.spendWindows),
    rateLimitPolicy: team.rateLimitPolicy === null ? null : { ...team.rateLimitPolicy },
    modelPolicy: { mode: team.modelPolicy.mode, modelIds: [...team.modelPolicy.modelIds] },
    budgetAlertThresholds: [...team.alerts.budgetAlertThresholds],
    version: team.version,
    spendWindows: await windowStatesOf(team.spendWindows, now, team.createdAt, (start) => figures.spentSince(team.id, start)),
    keyCount: figures.keyCount(team.id),
    createdAt: iso(team.createdAt),
    updatedAt: iso(team.updatedAt),
  };
}
