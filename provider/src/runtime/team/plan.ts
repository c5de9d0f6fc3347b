import type * as pulumi from "@pulumi/pulumi";
import { sameJson } from "../compare";
import { credentialHint, sameGateway } from "../connection";
import type { ProviderContext } from "../context";
import { containsUnknown } from "../shapes";
import { checkedResourceInputs, type ResourceCheckOutcome } from "../validated";
import { TEAM_PATCHABLE_FIELDS, TeamInputs, type DesiredTeam, type StoredTeam } from "./shapes";
import { changedTeamFields } from "./state";

/** Checks a program's inputs against the contract's own schemas (name, labels, the spend policy in either form, rate limits, the model ceiling, thresholds) and resolves the connection. */
export async function checkTeam(context: ProviderContext, news: Record<string, unknown>): Promise<ResourceCheckOutcome> {
  return checkedResourceInputs(context, TeamInputs, news, TEAM_PATCHABLE_FIELDS);
}

/**
 * Which properties change, and whether the team must be replaced. Every declared field, the name
 * included, is one in-place PATCH: nothing about a team needs replacing, and a replacement would
 * have to move its keys. Only another gateway replaces it. An unchanged program costs no request.
 */
export async function diffTeam(context: ProviderContext, stored: StoredTeam, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult> {
  if (containsUnknown(news.connection)) return { changes: true, replaces: ["connection"] };
  if (containsUnknown(news)) return { changes: true, replaces: [] };
  const desired = news as DesiredTeam;
  const target = context.connections.require(desired.connection);
  const replaces = sameGateway(target.baseUrl, stored.baseUrl) ? [] : ["connection"];
  const changes =
    replaces.length > 0 ||
    changedTeamFields(stored, desired).length > 0 ||
    !sameJson(stored.connection, desired.connection) ||
    !sameJson(stored.adoptTeamId, desired.adoptTeamId) ||
    credentialHint(target) !== stored.provisioningKeyHint;
  return { changes, replaces, deleteBeforeReplace: false };
}
