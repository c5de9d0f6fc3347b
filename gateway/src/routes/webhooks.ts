import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { DeletedWebhook, ROUTES, Webhook, WebhookWithSecret, WEBHOOK_LIMITS } from "@gateway-keys/contract";
import { fieldChanges } from "../audit/key-changes";
import { originOf } from "../audit/origin";
import { recordChange } from "../audit/record";
import { accountOf } from "../context";
import { GatewayError } from "../errors";
import { runIdempotent } from "../idempotency/runner";
import type { WebhookUpdate } from "../store/events/event-tables";
import type { StoredWebhook } from "../store/events/event-rows";
import type { StoreTransaction } from "../store/types";
import {
  applySecretRotation,
  applyWebhookDelete,
  applyWebhookUpdate,
  auditedWebhookFields,
  newWebhook,
  newWebhookSecret,
  secretScope,
  toWireDelivery,
  toWireWebhook,
  webhookSecretHint,
} from "../webhooks/webhook-records";
import { sendOutcome } from "./account-keys";
import { decodeCursor, pageOf } from "./pagination";
import { routeOf, type RoutePluginOptions } from "./route-table";

function webhookNotFound(): GatewayError {
  // Another owner's endpoint answers the same: existence is never revealed across owners.
  return new GatewayError("webhook_not_found", "No webhook with this id belongs to your account.", { param: "webhookId" });
}

/**
 * `/v1/account/webhooks`: endpoints as owned resources (list, create, read, change, rotate the
 * signing secret, delete) and their deliveries. Each mutation is one unit of work with its
 * idempotency record and its audit event, as for keys.
 */
export const webhookRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  /** The audit event (and `audit.webhook_*` event) of an endpoint change, in its unit of work. */
  const audit = (tx: StoreTransaction, request: FastifyRequest, action: string, before: StoredWebhook | null, after: StoredWebhook) =>
    recordChange(
      tx,
      {
        ownerId: after.ownerId,
        action,
        keyId: null,
        webhookId: after.id,
        versionBefore: before?.version ?? null,
        versionAfter: after.deletedAt === null ? after.version : null,
        changes: fieldChanges(before && auditedWebhookFields(before), auditedWebhookFields(after)),
        time: after.updatedAt,
      },
      originOf(request),
      null,
    );

  /** Reads (and holds) the endpoint, applies `change`, writes it and records the audit event. */
  const changeWebhook = async (tx: StoreTransaction, request: FastifyRequest, action: string, webhookId: string, change: (current: StoredWebhook) => WebhookUpdate) => {
    const current = await tx.events.getWebhook(accountOf(request).ownerId, webhookId, true);
    if (!current) throw webhookNotFound();
    const updated = await tx.events.updateWebhook(webhookId, current.version, change(current));
    await audit(tx, request, action, current, updated);
    return updated;
  };

  app.route({
    ...routeOf(ctx, ROUTES.listWebhooks),
    handler: async (request) => {
      const { limit, after } = request.query;
      const afterSeq = after === undefined ? 0 : decodeCursor("webhooks", after);
      const rows = await ctx.store.transaction((tx) => tx.events.listWebhooks(accountOf(request).ownerId, afterSeq, limit + 1));
      return pageOf("webhooks", rows, limit, toWireWebhook);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.createWebhook),
    handler: async (request, reply) => {
      const now = ctx.now();
      const { webhook, secret } = newWebhook(accountOf(request).ownerId, request.body, ctx.cipher, now);
      const outcome = await runIdempotent(ctx, request, { status: 201, body: WebhookWithSecret }, async (tx) => {
        const inserted = await tx.events.insertWebhook(webhook);
        await audit(tx, request, "webhook_create", null, inserted);
        return { ...toWireWebhook(inserted), secret };
      });
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.getWebhook),
    handler: async (request) => {
      const webhook = await ctx.store.transaction((tx) => tx.events.getWebhook(accountOf(request).ownerId, request.params.webhookId));
      if (!webhook) throw webhookNotFound();
      return toWireWebhook(webhook);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.updateWebhook),
    handler: async (request, reply) => {
      const now = ctx.now();
      const outcome = await runIdempotent(ctx, request, { status: 200, body: Webhook }, async (tx) =>
        toWireWebhook(await changeWebhook(tx, request, "webhook_update", request.params.webhookId, (current) => applyWebhookUpdate(current, request.body, now))),
      );
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.rotateWebhookSecret),
    handler: async (request, reply) => {
      const now = ctx.now();
      const { webhookId } = request.params;
      const { expectedVersion, overlapSeconds = WEBHOOK_LIMITS.defaultRotationOverlapSeconds } = request.body;
      const secret = newWebhookSecret();
      const sealed = ctx.cipher.seal(secret, secretScope(webhookId));
      const outcome = await runIdempotent(ctx, request, { status: 200, body: WebhookWithSecret }, async (tx) => {
        const rotate = (current: StoredWebhook) => applySecretRotation(current, expectedVersion, sealed, webhookSecretHint(secret), now, overlapSeconds * 1000);
        return { ...toWireWebhook(await changeWebhook(tx, request, "webhook_rotate_secret", webhookId, rotate)), secret };
      });
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.deleteWebhook),
    handler: async (request, reply) => {
      const now = ctx.now();
      const { webhookId } = request.params;
      const outcome = await runIdempotent(ctx, request, { status: 200, body: DeletedWebhook }, async (tx) => {
        await changeWebhook(tx, request, "webhook_delete", webhookId, (current) => applyWebhookDelete(current, now));
        await tx.events.cancelPendingDeliveries(webhookId, "the webhook was deleted");
        return { object: "webhook" as const, webhookId, deleted: true as const };
      });
      return sendOutcome(reply, outcome);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.listWebhookDeliveries),
    handler: async (request) => {
      const { limit, after } = request.query;
      const beforeSeq = after === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor("deliveries", after);
      const rows = await ctx.store.transaction(async (tx) => {
        if (!(await tx.events.getWebhook(accountOf(request).ownerId, request.params.webhookId))) throw webhookNotFound();
        return tx.events.listDeliveries(request.params.webhookId, beforeSeq, limit + 1);
      });
      return pageOf("deliveries", rows, limit, toWireDelivery);
    },
  });
};
