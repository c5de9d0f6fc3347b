import type { onRequestAsyncHookHandler } from "fastify";
import type { RouteName } from "@gateway-keys/contract";
import { accountOf, type AccountPrincipal } from "../context";
import { GatewayError } from "../errors";

/**
 * The account routes a caller who may view only some teams of an owner (a person the console's
 * access rules give teams, docs/console.md#what-a-person-may-view) may read: each keeps its answer
 * to those teams and the keys now in them, through {@link teamFilterOf}, {@link viewsKey} and
 * {@link viewsTeam}. Every other account route refuses such a caller ({@link refuseTeamViews}), so a
 * route added later stays closed to them until it filters too. Not here: the audit trail and its
 * check (one chain of every change of the owner, sign-ins of other people included) and webhooks
 * (the owner's endpoints and deliveries, of every key and team).
 */
export const TEAM_VIEW_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>([
  "listKeys",
  "getKey",
  "spendWindows",
  "usageSummary",
  "usageTimeline",
  "metrics",
  "logs",
  "listTeams",
  "getTeam",
]);

/** The hook of an account route that reads the whole owner: a caller limited to some teams is refused (403 `owner_not_viewable`). */
export function refuseTeamViews(): onRequestAsyncHookHandler {
  return async (request) => {
    const { ownerId, onlyTeams } = accountOf(request);
    if (onlyTeams === null) return;
    throw new GatewayError(
      "owner_not_viewable",
      `You may view only the teams ${onlyTeams.join(", ")} of the owner ${JSON.stringify(ownerId)} and their keys; this reads the whole owner, which only an access rule naming the owner allows.`,
    );
  };
}

/** The teams a store read keeps to; `undefined`: the whole owner. */
export function teamFilterOf(account: AccountPrincipal): readonly string[] | undefined {
  return account.onlyTeams ?? undefined;
}

/** Whether the caller may view a key of its owner: any, or one now in one of its teams. */
export function viewsKey(account: AccountPrincipal, key: { teamId: string | null }): boolean {
  return account.onlyTeams === null || (key.teamId !== null && account.onlyTeams.includes(key.teamId));
}

/** Whether the caller may view a team of its owner. */
export function viewsTeam(account: AccountPrincipal, teamId: string): boolean {
  return account.onlyTeams === null || account.onlyTeams.includes(teamId);
}
