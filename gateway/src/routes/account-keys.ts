import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiKey, ApiKeyWithSecret, NULLABLE_POLICIES, parseLabelSelector, REPLAYED_HEADER, ROUTES, type CreateApiKeyParams } from "@gateway-keys/contract";
import type { FastifyRequest } from "fastify";
import { originOf } from "../audit/origin";
import { recordKeyChange } from "../audit/record";
import { accountOf } from "../context";
import { newSecret } from "../crypto";
import { GatewayError } from "../errors";
import { runIdempotent, type IdempotentOutcome } from "../idempotency/runner";
import {
  applyRevoke,
  applyRotate,
  applyUpdate,
  assertFutureExpiry,
  assertReferenceFree,
  newApiKey,
  toWireKey,
  toWireKeyWithSecret,
  windowSpendOf,
} from "../keys/key-records";
import type { ApiKeyUpdate, StoredApiKey, StoreTransaction } from "../store/types";
import { teamFilterOf } from "../auth/team-view";
import { changeKeyIn, type KeyChangeAction } from "./key-change";
import { decodeCursor, pageOf } from "./pagination";
import { routeOf, type RoutePluginOptions } from "./route-table";
import { viewedKey } from "./viewed-records";

/**
 * A create as the contract reads it, for its idempotency fingerprint: a policy sent as null and one
 * left out are one request (no cap, no rate limit, no expiry), read as the one that leaves it out;
 * so are the defaults of fields added since (no labels, a lifetime cap) — so replies recorded
 * before these rules still replay.
 */
function createMeaning(body: CreateApiKeyParams): Record<string, unknown> {
  const meaning: Record<string, unknown> = { ...body };
  for (const field of NULLABLE_POLICIES) if (meaning[field] === null) delete meaning[field];
  if (Object.keys(body.labels).length === 0) delete meaning.labels;
  if (body.budgetAlertThresholds.length === 0) delete meaning.budgetAlertThresholds;
  if (meaning.teamId === null) delete meaning.teamId;
  if (body.spendPolicy && "resetPeriod" in body.spendPolicy && body.spendPolicy.resetPeriod === "never") {
    const { resetPeriod: _lifetime, ...spendPolicy } = body.spendPolicy;
    meaning.spendPolicy = spendPolicy;
  }
  return meaning;
}

/**
 * Refuses a `teamId` that names no team of the owner (400 naming the field), and holds the team
 * until the unit of work ends, so it cannot be deleted while a key joins it.
 */
async function assertTeamOf(tx: StoreTransaction, ownerId: string, teamId: string): Promise<void> {
  if (!(await tx.teams.getTeam(ownerId, teamId, true))) {
    throw new GatewayError("validation_failed", `teamId: no team ${teamId} belongs to your account; create it first (POST /v1/account/teams) or name another.`, { param: "teamId" });
  }
}

/** Sends an idempotent operation's answer; a replay says so in a header. */
export function sendOutcome<Body>(reply: FastifyReply, outcome: IdempotentOutcome<Body>): FastifyReply {
  if (outcome.replayed) reply.header(REPLAYED_HEADER, "true");
  return reply.code(outcome.status).send(outcome.body);
}

/**
 * `/v1/account/api-keys`: list, create, read, change, rotate, revoke. Each mutation is one unit of
 * work (idempotency/runner.ts): the key rules of keys/key-records.ts decide the next record, the store
 * writes it, and the answer is recorded for replay in the same transaction.
 */
export const accountKeyRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  /** One change of one key in the caller's unit of work (key-change.ts), made by this request. */
  const changeKey = (
    tx: StoreTransaction,
    request: FastifyRequest,
    action: KeyChangeAction,
    keyId: string,
    change: (current: StoredApiKey) => ApiKeyUpdate,
  ): Promise<StoredApiKey> => changeKeyIn(ctx, tx, { ownerId: accountOf(request).ownerId, origin: originOf(request) }, action, keyId, change);

  /** The key record of a key read in a unit of work, with its secrets' use. */
  const wireKey = async (tx: StoreTransaction, key: StoredApiKey, now: number) =>
    toWireKey(tx, key, now, (await tx.secretUse.figuresOf([key.id])).get(key.id));

  /** The audit event (and its webhook event) of a key change, in the change's unit of work. */
  const auditKey = (tx: StoreTransaction, request: FastifyRequest, action: string, before: StoredApiKey | null, after: StoredApiKey) =>
    recordKeyChange(tx, action, before, after, originOf(request));

  app.route({
    ...routeOf(ctx, ROUTES.listKeys),
    handler: async (request) => {
      const { limit, after, label } = request.query;
      const afterSeq = after === undefined ? 0 : decodeCursor("keys", after);
      const account = accountOf(request);
      const filter = { selectors: (label ?? []).map(parseLabelSelector), teamIds: teamFilterOf(account) };
      const rows = await ctx.store.listApiKeys(account.ownerId, afterSeq, limit + 1, filter);
      const now = ctx.now();
      const page = pageOf("keys", rows, limit, (key) => key);
      const spend = await windowSpendOf(ctx.store, page.data, now);
      const figures = await ctx.store.transaction((tx) => tx.secretUse.figuresOf(page.data.map((key) => key.id)));
      return { ...page, data: await Promise.all(page.data.map((key) => toWireKey(spend, key, now, figures.get(key.id)))) };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.createKey),
    handler: async (request, reply) => {
      const { ownerId } = accountOf(request);
      const now = ctx.now();
      const { key, secret } = newApiKey(ownerId, request.body, now);
      const outcome = await runIdempotent(
        ctx,
        request,
        { status: 201, body: ApiKeyWithSecret },
        async (tx) => {
          // Checked in the unit of work, after a replay would have answered: a retried create replays even
          // once its expiresAt has passed, and of two concurrent creates with one reference only one wins.
          assertFutureExpiry(key.expiresAt, now);
          if (key.clientReference !== null) assertReferenceFree(await tx.findLiveApiKeyByReference(ownerId, key.clientReference));
          if (key.teamId !== null) await assertTeamOf(tx, ownerId, key.teamId);
          const inserted = await tx.insertApiKey(key);
          await auditKey(tx, request, "create", null, inserted);
          return toWireKeyWithSecret(tx, inserted, secret, now);
        },
        createMeaning(request.body),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.getKey),
    handler: async (request) => {
      const key = await viewedKey(ctx, accountOf(request), request.params.keyId);
      const figures = await ctx.store.transaction((tx) => tx.secretUse.figuresOf([key.id]));
      return toWireKey(ctx.store, key, ctx.now(), figures.get(key.id));
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.updateKey),
    handler: async (request, reply) => {
      const now = ctx.now();
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKey }, async (tx) => {
        const updated = await changeKey(tx, request, "update", request.params.keyId, (current) => applyUpdate(current, request.body, now));
        // After the key's own checks (404, key_revoked, conflict), as the order of checks has it; a
        // refusal here rolls the change back with the rest of the unit of work.
        const { teamId } = request.body;
        if (teamId !== undefined && teamId !== null) await assertTeamOf(tx, accountOf(request).ownerId, teamId);
        return wireKey(tx, updated, now);
      });
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.rotateKey),
    handler: async (request, reply) => {
      const now = ctx.now();
      const secret = newSecret("regular");
      const { expectedVersion, gracePeriodSeconds = 0, ...previous } = request.body;
      const rotate = (current: StoredApiKey) => applyRotate(current, expectedVersion, secret, now, gracePeriodSeconds * 1000, previous);
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKeyWithSecret }, async (tx) => {
        const rotated = await changeKey(tx, request, "rotate", request.params.keyId, rotate);
        return toWireKeyWithSecret(tx, rotated, secret, now, (await tx.secretUse.figuresOf([rotated.id])).get(rotated.id));
      });
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.revokeKey),
    handler: async (request, reply) => {
      const now = ctx.now();
      const { expectedVersion } = request.body;
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKey }, async (tx) =>
        wireKey(tx, await changeKey(tx, request, "revoke", request.params.keyId, (current) => applyRevoke(current, expectedVersion, now)), now),
      );
      return sendOutcome(reply, outcome);
    },
  });
};
