import type { SqlRunner } from "./events/sql-runner";
import { TEAMS, type NewTeam, type StoredTeam, type TeamUpdate } from "./team-rows";

type Int = bigint | number;

/** One team's requests and spend on one UTC day (`day`: its 00:00, ms). */
export interface TeamSpendDay {
  day: number;
  requests: number;
  spentMicros: bigint;
}

/**
 * The teams of a store, and what is counted of them: their keys and their spend per day. Both
 * stores share it (one SQL, `?` placeholders, see events/sql-runner.ts); an instance on a unit of
 * work's connection writes in its transaction. Persists and reads only: the rules live in
 * gateway/src/teams.
 */
export class TeamTables {
  readonly #run: SqlRunner;

  constructor(runner: SqlRunner) {
    this.#run = runner;
  }

  /** A list parameter: PostgreSQL takes an array, SQLite a JSON text read with json_each. */
  #inList(column: string): string {
    return this.#run.dialect === "postgres" ? `${column} = ANY (?)` : `${column} IN (SELECT value FROM json_each(?))`;
  }
  #list(values: readonly string[]): unknown {
    return this.#run.dialect === "postgres" ? values : JSON.stringify(values);
  }

  async insertTeam(team: NewTeam): Promise<StoredTeam> {
    const columns = TEAMS.insertColumns;
    const [row] = await this.#run.all<Record<string, unknown>>(
      `INSERT INTO teams (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) RETURNING ${TEAMS.selectList()}`,
      TEAMS.insertValues(team),
    );
    return TEAMS.fromRow(row!);
  }

  /** One of `ownerId`'s teams (another owner's is `undefined`); `hold` keeps it from concurrent change until the unit of work ends. */
  async getTeam(ownerId: string, teamId: string, hold = false): Promise<StoredTeam | undefined> {
    const lock = hold && this.#run.dialect === "postgres" ? " FOR UPDATE" : "";
    const [row] = await this.#run.all<Record<string, unknown>>(`SELECT ${TEAMS.selectList()} FROM teams WHERE id = ? AND owner_id = ?${lock}`, [teamId, ownerId]);
    return row && TEAMS.fromRow(row);
  }

  /** Up to `limit` of the owner's teams created after sequence number `afterSeq`, oldest first; with `teamIds`, only those. */
  async listTeams(ownerId: string, afterSeq: number, limit: number, teamIds?: readonly string[]): Promise<StoredTeam[]> {
    if (teamIds?.length === 0) return [];
    const only = teamIds === undefined ? "" : ` AND id IN (${teamIds.map(() => "?").join(", ")})`;
    const rows = await this.#run.all<Record<string, unknown>>(
      `SELECT ${TEAMS.selectList()} FROM teams WHERE owner_id = ? AND seq > ?${only} ORDER BY seq LIMIT ?`,
      [ownerId, afterSeq, ...(teamIds ?? []), limit],
    );
    return rows.map((row) => TEAMS.fromRow(row));
  }

  /** Replaces a team's changeable columns, provided its version is still `readVersion` (otherwise throws). */
  async updateTeam(teamId: string, readVersion: number, next: TeamUpdate): Promise<StoredTeam> {
    const [row] = await this.#run.all<Record<string, unknown>>(
      `UPDATE teams SET ${TEAMS.updateColumns.map((name) => `${name} = ?`).join(", ")} WHERE id = ? AND version = ? RETURNING ${TEAMS.selectList()}`,
      [...TEAMS.updateValues(next), teamId, readVersion],
    );
    if (!row) throw new Error(`team ${teamId} is not at version ${readVersion}`);
    return TEAMS.fromRow(row);
  }

  async deleteTeam(teamId: string): Promise<void> {
    await this.#run.all("DELETE FROM teams WHERE id = ?", [teamId]);
  }

  /** Up to `limit` ids of the team's keys that are not revoked, by id. */
  async memberKeyIds(teamId: string, limit: number): Promise<string[]> {
    const rows = await this.#run.all<{ id: string }>("SELECT id FROM api_keys WHERE team_id = ? AND state <> 'revoked' ORDER BY id LIMIT ?", [teamId, limit]);
    return rows.map((row) => row.id);
  }

  /** How many keys that are not revoked each team has, by team id (teams without any left out). */
  async keyCounts(teamIds: readonly string[]): Promise<Map<string, number>> {
    if (teamIds.length === 0) return new Map();
    const rows = await this.#run.all<{ team_id: string; keys: Int }>(
      `SELECT team_id, COUNT(*) AS keys FROM api_keys WHERE ${this.#inList("team_id")} AND state <> 'revoked' GROUP BY team_id`,
      [this.#list(teamIds)],
    );
    return new Map(rows.map((row) => [row.team_id, Number(row.keys)]));
  }

  /** What each asked team was charged for requests that began on days at or after `since`, in the order asked (one statement). */
  async spentSinceEach(asked: readonly { teamId: string; since: number }[]): Promise<bigint[]> {
    if (asked.length === 0) return [];
    const sums = asked.map(() => "SELECT COALESCE(SUM(spent_micros), 0) AS spent FROM team_spend_days WHERE team_id = ? AND day >= ?");
    const rows = await this.#run.all<{ spent: Int }>(sums.join(" UNION ALL "), asked.flatMap((each) => [each.teamId, each.since]));
    return rows.map((row) => BigInt(row.spent));
  }

  /** The team's requests and spend per UTC day from the day `since` on, oldest first. */
  async spendDays(teamId: string, since: number): Promise<TeamSpendDay[]> {
    const rows = await this.#run.all<{ day: Int; requests: Int; spent_micros: Int }>(
      "SELECT day, requests, spent_micros FROM team_spend_days WHERE team_id = ? AND day >= ? ORDER BY day",
      [teamId, since],
    );
    return rows.map((row) => ({ day: Number(row.day), requests: Number(row.requests), spentMicros: BigInt(row.spent_micros) }));
  }

  /** What the owner's teams spent over their life, by team id. */
  async spentByTeam(ownerId: string): Promise<Map<string, { requests: number; spentMicros: bigint }>> {
    const rows = await this.#run.all<{ team_id: string; requests: Int; spent: Int }>(
      "SELECT team_id, SUM(requests) AS requests, SUM(spent_micros) AS spent FROM team_spend_days WHERE owner_id = ? GROUP BY team_id ORDER BY team_id",
      [ownerId],
    );
    return new Map(rows.map((row) => [row.team_id, { requests: Number(row.requests), spentMicros: BigInt(row.spent) }]));
  }
}
