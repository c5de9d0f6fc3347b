import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { DeletedTeam, ROUTES, Team, type CreateTeamParams } from "@gateway-keys/contract";
import { fieldChanges } from "../audit/key-changes";
import { originOf } from "../audit/origin";
import { recordChange } from "../audit/record";
import { accountOf } from "../context";
import { runIdempotent } from "../idempotency/runner";
import type { StoredTeam, StoreTransaction, TeamUpdate } from "../store/types";
import { applyTeamUpdate, assertTeamDeletable, auditedTeamFields, newTeam, teamFiguresOf, teamNotFound, toWireTeam } from "../teams/team-records";
import { teamFilterOf } from "../auth/team-view";
import { sendOutcome } from "./account-keys";
import { decodeCursor, pageOf } from "./pagination";
import { routeOf, type RoutePluginOptions } from "./route-table";
import { viewedTeam } from "./viewed-records";

/**
 * A team create as its idempotency fingerprint reads it: a policy sent as null and one left out are
 * one request (no cap, no rate limit), read as the one that leaves it out — so answers recorded for
 * a create that left them out still replay.
 */
function createTeamMeaning(body: CreateTeamParams): Record<string, unknown> {
  const meaning: Record<string, unknown> = { ...body };
  for (const field of ["spendPolicy", "rateLimitPolicy"] as const) if (meaning[field] === null) delete meaning[field];
  return meaning;
}

/**
 * `/v1/account/teams`: teams as owned resources (list, create, read, change, delete). Each mutation
 * is one unit of work with its idempotency record and its audit event, as for keys and webhooks.
 */
export const teamRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  /** The audit event (and `audit.team_*` event) of a team change, in its unit of work; `after` null: deleted. */
  const audit = (tx: StoreTransaction, request: FastifyRequest, action: string, before: StoredTeam | null, after: StoredTeam | null, time: number) => {
    const team = (after ?? before)!;
    return recordChange(
      tx,
      {
        ownerId: team.ownerId,
        action,
        keyId: null,
        webhookId: null,
        teamId: team.id,
        versionBefore: before?.version ?? null,
        versionAfter: after?.version ?? null,
        changes: after ? fieldChanges(before && auditedTeamFields(before), auditedTeamFields(after)) : {},
        time,
      },
      originOf(request),
      // A webhook's label selector matches a team's labels.
      team.labels,
    );
  };

  /** The wire record of one team read in a unit of work. */
  const wireTeam = async (tx: StoreTransaction, team: StoredTeam, now: number) => toWireTeam(team, await teamFiguresOf(tx.teams, [team], now), now);

  /** Reads (and holds) the team, applies `change`, writes it and records the audit event. */
  const changeTeam = async (tx: StoreTransaction, request: FastifyRequest, teamId: string, change: (current: StoredTeam) => TeamUpdate) => {
    const current = await tx.teams.getTeam(accountOf(request).ownerId, teamId, true);
    if (!current) throw teamNotFound();
    const updated = await tx.teams.updateTeam(teamId, current.version, change(current));
    ctx.teams.forget(teamId);
    await audit(tx, request, "team_update", current, updated, updated.updatedAt);
    return updated;
  };

  app.route({
    ...routeOf(ctx, ROUTES.listTeams),
    handler: async (request) => {
      const { limit, after } = request.query;
      const afterSeq = after === undefined ? 0 : decodeCursor("teams", after);
      const now = ctx.now();
      const account = accountOf(request);
      const rows = await ctx.store.teams.listTeams(account.ownerId, afterSeq, limit + 1, teamFilterOf(account));
      const page = pageOf("teams", rows, limit, (team) => team);
      const figures = await teamFiguresOf(ctx.store.teams, page.data, now);
      return { ...page, data: await Promise.all(page.data.map((team) => toWireTeam(team, figures, now))) };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.createTeam),
    handler: async (request, reply) => {
      const now = ctx.now();
      const team = newTeam(accountOf(request).ownerId, request.body, now);
      const outcome = await runIdempotent(ctx, request, { status: 201, body: Team }, async (tx) => {
        const inserted = await tx.teams.insertTeam(team);
        await audit(tx, request, "team_create", null, inserted, now);
        return wireTeam(tx, inserted, now);
      }, createTeamMeaning(request.body));
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.getTeam),
    handler: async (request) => {
      const now = ctx.now();
      const team = await viewedTeam(ctx, accountOf(request), request.params.teamId);
      return toWireTeam(team, await teamFiguresOf(ctx.store.teams, [team], now), now);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.updateTeam),
    handler: async (request, reply) => {
      const now = ctx.now();
      const outcome = await runIdempotent(ctx, request, { status: 200, body: Team }, async (tx) =>
        wireTeam(tx, await changeTeam(tx, request, request.params.teamId, (current) => applyTeamUpdate(current, request.body, now)), now),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.deleteTeam),
    handler: async (request, reply) => {
      const now = ctx.now();
      const { teamId } = request.params;
      const outcome = await runIdempotent(ctx, request, { status: 200, body: DeletedTeam }, async (tx) => {
        const current = await tx.teams.getTeam(accountOf(request).ownerId, teamId, true);
        if (!current) throw teamNotFound();
        await assertTeamDeletable(tx.teams, current, request.body.expectedVersion);
        await tx.teams.deleteTeam(teamId);
        ctx.teams.forget(teamId);
        await audit(tx, request, "team_delete", current, null, now);
        return { object: "team" as const, teamId, deleted: true as const };
      });
      return sendOutcome(reply, outcome);
    },
  });
};
