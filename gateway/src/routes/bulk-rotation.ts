import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  BulkRotation,
  parseLabelSelector,
  previousSecretInUse,
  ROUTES,
  type BulkRotateParams,
  type BulkRotationItem,
} from "@gateway-keys/contract";
import { originOf } from "../audit/origin";
import { accountOf } from "../context";
import { newSecret } from "../crypto";
import { runIdempotent } from "../idempotency/runner";
import { bulkOutcomeOf, selectKeys, type BulkMode } from "../keys/bulk-rotation";
import { applyRotate, toWireKey } from "../keys/key-records";
import type { StoredApiKey, StoreTransaction } from "../store/types";
import { sendOutcome } from "./account-keys";
import { changeKeyIn } from "./key-change";
import { routeOf, type RoutePluginOptions } from "./route-table";

/**
 * A bulk rotation as its Idempotency-Key names it: the selectors and the rotation terms, without
 * the pinned versions. The pins guard against concurrent change; they are not what the operation
 * is. So a retry after an unknown outcome, which re-reads the keys (their versions moved if the
 * first attempt committed) and pins the new versions, replays the first answer instead of failing
 * as a different request — and never rotates a key twice.
 */
function bulkMeaning(body: BulkRotateParams): Record<string, unknown> {
  const { expectedVersions: _pins, ...meaning } = body;
  return meaning;
}

/**
 * Runs a bulk rotation, or its dry run, in the unit of work `tx`: selects the keys, decides each
 * one's outcome and, for each `rotated`, calls `rotate` (a dry run passes none). Keys are visited in
 * key id order, so two bulk rotations over the same keys take their rows in one order and cannot
 * deadlock.
 */
async function bulkRotate(
  run: { ownerId: string; body: BulkRotateParams; requestId: string; now: number },
  tx: StoreTransaction,
  rotate: ((current: StoredApiKey) => Promise<{ updated: StoredApiKey; secret: string }>) | null,
): Promise<BulkRotation> {
  const { ownerId, body, now } = run;
  const selectors = body.label.map(parseLabelSelector);
  const mode: BulkMode = { dryRun: body.dryRun, pins: body.expectedVersions ?? null };
  const selected = new Map((await selectKeys(tx, ownerId, selectors)).map((key) => [key.id, key]));
  const ids = [...new Set([...selected.keys(), ...Object.keys(mode.pins ?? {})])].sort();
  const figures = await tx.secretUse.figuresOf(ids);

  const keys: BulkRotationItem[] = [];
  for (const keyId of ids) {
    const pinned = mode.pins?.[keyId];
    // A pinned key is read again in the unit of work (held there until it ends): it is the one that may change.
    const key = pinned === undefined ? selected.get(keyId) : await tx.getApiKey(ownerId, keyId);
    const outcome = bulkOutcomeOf(key, pinned, selectors, mode);
    const before = key === undefined ? null : await toWireKey(tx, key, now, figures.get(keyId));
    const item = {
      keyId,
      outcome,
      expectedVersion: pinned ?? null,
      key: before,
      secret: null,
      endsPreviousSecretInUse: previousSecretInUse(before?.previousSecret ?? null, now),
    };
    if (outcome === "rotated" && key !== undefined && rotate !== null) {
      const { updated, secret } = await rotate(key);
      keys.push({ ...item, key: await toWireKey(tx, updated, now, (await tx.secretUse.figuresOf([keyId])).get(keyId)), secret });
    } else keys.push(item);
  }
  return {
    object: "bulk_rotation",
    dryRun: body.dryRun,
    label: [...body.label],
    gracePeriodSeconds: body.gracePeriodSeconds ?? 0,
    retireWhenIdleSeconds: body.retireWhenIdleSeconds ?? null,
    inUseWarningSeconds: body.inUseWarningSeconds ?? null,
    requestId: run.requestId,
    ranAt: new Date(now).toISOString(),
    keys,
  };
}

/**
 * `POST /v1/account/api-keys/bulk-rotate` (extension `bulk_rotation`). A dry run only reads. A
 * rotation is one unit of work under the request's Idempotency-Key (idempotency/runner.ts): every
 * selected key is rotated, with its `rotate` audit event, and the answer with every new secret is
 * recorded for replay, all in one commit — so a crash half-way leaves every key as it was and a
 * retry runs it whole, and a retry after the commit replays the answer and rotates nothing.
 */
export const bulkRotationRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.bulkRotateKeys),
    handler: async (request, reply) => {
      const run = { ownerId: accountOf(request).ownerId, body: request.body, requestId: request.id, now: ctx.now() };
      // A dry run writes nothing; it reads in a unit of work only to see the keys and their use at one instant.
      if (run.body.dryRun) return ctx.store.transaction((tx) => bulkRotate(run, tx, null));
      const { gracePeriodSeconds = 0, retireWhenIdleSeconds, inUseWarningSeconds } = run.body;
      const previous = { retireWhenIdleSeconds, inUseWarningSeconds };
      const by = { ownerId: run.ownerId, origin: originOf(request) };
      const rotateIn = (tx: StoreTransaction) => async (current: StoredApiKey) => {
        const secret = newSecret("regular");
        const rotate = (held: StoredApiKey) => applyRotate(held, current.version, secret, run.now, gracePeriodSeconds * 1000, previous);
        return { updated: await changeKeyIn(ctx, tx, by, "rotate", current.id, rotate), secret };
      };
      const outcome = await runIdempotent(
        ctx,
        request,
        { status: 200, body: BulkRotation },
        (tx) => bulkRotate(run, tx, rotateIn(tx)),
        bulkMeaning(request.body),
      );
      return sendOutcome(reply, outcome);
    },
  });
};
