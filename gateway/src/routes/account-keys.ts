import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ApiKey, ApiKeyWithSecret, REPLAYED_HEADER, ROUTES } from "@gateway-keys/contract";
import { accountOf } from "../context";
import { newSecret } from "../crypto";
import { GatewayError } from "../errors";
import { runIdempotent, type IdempotentOutcome } from "../idempotency/runner";
import { applyRevoke, applyRotate, applyUpdate, assertReferenceFree, newApiKey, toWireKey, toWireKeyWithSecret } from "../keys/records";
import type { ApiKeyUpdate, StoredApiKey, StoreTransaction } from "../store/types";
import { decodeCursor, pageOf } from "./pagination";
import { routeOf, type RoutePluginOptions } from "./route-table";

function keyNotFound(): GatewayError {
  // Also the answer for another owner's key: existence is never revealed across owners.
  return new GatewayError("key_not_found", "No API key with this id belongs to your account.", { param: "keyId" });
}

function withoutNullSpendPolicy<Body extends { spendPolicy?: unknown }>(body: Body): Omit<Body, "spendPolicy"> | Body {
  if (body.spendPolicy !== null) return body;
  const { spendPolicy: _none, ...rest } = body;
  return rest;
}

/** Sends an idempotent operation's answer; a replay says so in a header. */
function sendOutcome<Body>(reply: FastifyReply, outcome: IdempotentOutcome<Body>): FastifyReply {
  if (outcome.replayed) reply.header(REPLAYED_HEADER, "true");
  return reply.code(outcome.status).send(outcome.body);
}

/**
 * `/v1/account/api-keys`: list, create, read, change, rotate, revoke. Each mutation is one unit of
 * work (idempotency/runner.ts): the key rules of keys/records.ts decide the next record, the store
 * writes it, and the answer is recorded for replay in the same transaction.
 */
export const accountKeyRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  /**
   * One change of one key, checked and written in the caller's unit of work: the key is read (and
   * held) in the transaction, `change` applies the lifecycle rules, and the key cache forgets the
   * key before the write commits.
   */
  const changeKey = async (
    tx: StoreTransaction,
    ownerId: string,
    keyId: string,
    change: (current: StoredApiKey) => ApiKeyUpdate,
  ): Promise<StoredApiKey> => {
    const current = await tx.getApiKey(ownerId, keyId);
    if (!current) throw keyNotFound();
    const next = change(current);
    ctx.keys.forget(keyId);
    return tx.updateApiKey(keyId, current.version, next);
  };

  app.route({
    ...routeOf(ctx, ROUTES.listKeys),
    handler: async (request) => {
      const { limit, after } = request.query;
      const afterSeq = after === undefined ? 0 : decodeCursor("keys", after);
      const rows = await ctx.store.listApiKeys(accountOf(request).ownerId, afterSeq, limit + 1);
      return pageOf("keys", rows, limit, toWireKey);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.createKey),
    handler: async (request, reply) => {
      const { ownerId } = accountOf(request);
      const { key, secret } = newApiKey(ownerId, request.body, ctx.now());
      const outcome = await runIdempotent(
        ctx,
        request,
        { status: 201, body: ApiKeyWithSecret },
        async (tx) => {
          // Checked in the unit of work, so of two concurrent creates with one reference only one wins.
          if (key.clientReference !== null) assertReferenceFree(await tx.findLiveApiKeyByReference(ownerId, key.clientReference));
          return toWireKeyWithSecret(await tx.insertApiKey(key), secret);
        },
        // A create that leaves spendPolicy out and one that sends null both mean "no cap": one request,
        // read as the one that leaves it out (so replies recorded before this rule still replay).
        withoutNullSpendPolicy(request.body),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.getKey),
    handler: async (request) => {
      const key = await ctx.store.getApiKey(accountOf(request).ownerId, request.params.keyId);
      if (!key) throw keyNotFound();
      return toWireKey(key);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.updateKey),
    handler: async (request, reply) => {
      const { ownerId } = accountOf(request);
      const now = ctx.now();
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKey }, async (tx) =>
        toWireKey(await changeKey(tx, ownerId, request.params.keyId, (current) => applyUpdate(current, request.body, now))),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.rotateKey),
    handler: async (request, reply) => {
      const { ownerId } = accountOf(request);
      const now = ctx.now();
      const secret = newSecret("regular");
      const { expectedVersion, gracePeriodSeconds = 0 } = request.body;
      const rotate = (current: StoredApiKey) => applyRotate(current, expectedVersion, secret, now, gracePeriodSeconds * 1000);
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKeyWithSecret }, async (tx) =>
        toWireKeyWithSecret(await changeKey(tx, ownerId, request.params.keyId, rotate), secret),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.revokeKey),
    handler: async (request, reply) => {
      const { ownerId } = accountOf(request);
      const now = ctx.now();
      const { expectedVersion } = request.body;
      const outcome = await runIdempotent(ctx, request, { status: 200, body: ApiKey }, async (tx) =>
        toWireKey(await changeKey(tx, ownerId, request.params.keyId, (current) => applyRevoke(current, expectedVersion, now))),
      );
      return sendOutcome(reply, outcome);
    },
  });
};
