import type { AccountPrincipal, GatewayContext } from "../context";
import { viewsKey, viewsTeam } from "../auth/team-view";
import type { StoredApiKey, StoredTeam } from "../store/types";
import { teamNotFound } from "../teams/team-records";
import { keyNotFound } from "./key-change";

/**
 * The caller's key `keyId`, when they may view it; else 404 `key_not_found`, the answer for another
 * owner's key: nothing tells a caller limited to some teams that a key of another team exists.
 */
export async function viewedKey(ctx: GatewayContext, account: AccountPrincipal, keyId: string): Promise<StoredApiKey> {
  const key = await ctx.store.getApiKey(account.ownerId, keyId);
  if (!key || !viewsKey(account, key)) throw keyNotFound();
  return key;
}

/** The caller's team `teamId`, when they may view it; else 404 `team_not_found`, as for another owner's team. */
export async function viewedTeam(ctx: GatewayContext, account: AccountPrincipal, teamId: string): Promise<StoredTeam> {
  const team = await ctx.store.teams.getTeam(account.ownerId, teamId);
  if (!team || !viewsTeam(account, team.id)) throw teamNotFound();
  return team;
}
