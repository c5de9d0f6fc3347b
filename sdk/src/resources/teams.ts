import {
  ROUTES,
  routePath,
  Team,
  type CreateTeamRequest,
  type DeletedTeam,
  type UpdateTeamRequest,
  type VersionedRequest,
} from "@gateway-keys/contract";
import type { RequestClient } from "../core/resource";
import { APIPromise } from "../core/api-promise";
import { InvalidArgumentError } from "../core/errors";
import type { ListParams, PagePromise } from "../core/pagination";
import type { RequestOptions } from "../core/request-options";

/**
 * Teams of the owner: a spend policy (one or several windows), a rate limit and a model ceiling
 * shared by every key in the team. A key joins with `teamId` on create or update. Mutations carry
 * an Idempotency-Key, the same on every retry; update and delete need the `expectedVersion` last seen.
 * @example
 * const team = await client.teams.create({ name: "search", spendPolicy: { windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] } });
 * await client.apiKeys.create({ name: "search-api", teamId: team.teamId });
 */
export class Teams {
  readonly #client: RequestClient;

  /** Built by {@link GatewayClient}; reach it as `client.teams`. */
  constructor(client: RequestClient) {
    this.#client = client;
  }

  /**
   * Creates a team.
   * @example
   * const team = await client.teams.create({ name: "search", rateLimitPolicy: { requestsPerMinute: 600 } });
   */
  create(body: CreateTeamRequest, options?: RequestOptions): APIPromise<Team> {
    const route = ROUTES.createTeam;
    return this.#client.request({ method: route.method, path: route.path, body, auth: "provisioning", schema: route.answer.schema, options });
  }

  /**
   * Lists teams, oldest first. Await for a page, `for await` for every team.
   * @example
   * for await (const team of client.teams.list()) console.log(team.name, team.keyCount);
   */
  list(query: ListParams = {}, options?: RequestOptions): PagePromise<Team> {
    return this.#client.requestPage({ path: ROUTES.listTeams.path, query: { ...query }, auth: "provisioning", item: Team, options });
  }

  /**
   * Reads one team, with what each window of its spend policy spent so far.
   * @example
   * const { spendWindows } = await client.teams.get("team_123");
   */
  get(teamId: string, options?: RequestOptions): APIPromise<Team> {
    const route = ROUTES.getTeam;
    return withTeamId(teamId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { teamId: id }), auth: "provisioning", schema: route.answer.schema, teamId: id, options }),
    );
  }

  /**
   * Changes a team's name, labels or policies (each replaced whole; null clears a spend or rate limit policy).
   * @throws ConflictError code `conflict` when `expectedVersion` is stale.
   * @example
   * await client.teams.update(team.teamId, { expectedVersion: team.version, spendPolicy: { limitUnits: "3000", resetPeriod: "monthly" } });
   */
  update(teamId: string, body: UpdateTeamRequest, options?: RequestOptions): APIPromise<Team> {
    const route = ROUTES.updateTeam;
    return withTeamId(teamId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { teamId: id }), body, auth: "provisioning", schema: route.answer.schema, teamId: id, expectedVersion: body.expectedVersion, options }),
    );
  }

  /**
   * Deletes a team that has no keys.
   * @throws ConflictError code `team_not_empty` (`keyIds` names some of its keys) or `conflict`.
   * @example
   * await client.teams.delete(team.teamId, { expectedVersion: team.version });
   */
  delete(teamId: string, body: VersionedRequest, options?: RequestOptions): APIPromise<DeletedTeam> {
    const route = ROUTES.deleteTeam;
    return withTeamId(teamId, (id) =>
      this.#client.request({ method: route.method, path: routePath(route, { teamId: id }), body, auth: "provisioning", schema: route.answer.schema, teamId: id, expectedVersion: body.expectedVersion, options }),
    );
  }
}

function withTeamId<T>(teamId: string, call: (id: string) => APIPromise<T>): APIPromise<T> {
  if (typeof teamId !== "string" || teamId.length === 0) {
    return new APIPromise(Promise.reject(new InvalidArgumentError("invalid_argument", "teamId must be a non-empty string, e.g. the teamId that create returned")));
  }
  return call(teamId);
}
