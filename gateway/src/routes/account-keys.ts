import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  CreateApiKeyRequest,
  ListQuery,
  UpdateApiKeyRequest,
  VersionedRequest,
  type CreateApiKeyParams,
  type UpdateApiKeyParams,
} from "@gateway-keys/contract";
import type { z } from "zod";
import { requireProvisioningKey } from "../auth/hooks";
import type { GatewayContext } from "../context";
import { newSecret } from "../crypto";
import { GatewayError } from "../errors";
import { beginIdempotentRequest, requireIdempotencyKey, sendReplay } from "../idempotency/idempotency";
import { applyRevoke, applyRotate, applyUpdate, newApiKey, toWireKey, toWireKeyWithSecret } from "../keys/records";
import type { ApiKeyUpdate, CompleteReply, StoredApiKey } from "../store/types";
import { decodeCursor, pageOf } from "./pagination";

/** Options every route plugin receives. */
export interface RouteOptions {
  ctx: GatewayContext;
}

const JSON_TYPE = "application/json; charset=utf-8";

function keyNotFound(): GatewayError {
  // Also the answer for another owner's key: existence is never revealed across owners.
  return new GatewayError("key_not_found", "No API key with this id belongs to your account.", { param: "keyId" });
}

const keyIdOf = (request: FastifyRequest): string => (request.params as { keyId: string }).keyId;

/**
 * Runs one account mutation under its idempotency key: replays a stored reply, or claims the key,
 * mutates and stores the exact reply body in the mutation's own transaction (so a crash can never
 * leave a key created without its reply), and releases the claim if the mutation fails.
 */
function idempotentMutation(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  mutate: (complete: CompleteReply) => StoredApiKey | undefined,
  render: (written: StoredApiKey) => unknown,
): FastifyReply {
  const start = beginIdempotentRequest(ctx, request);
  if (start.kind === "replay") return sendReplay(reply, start.status, start.body);
  let body = "";
  try {
    const written = mutate(start.claim.complete(status, (row) => (body = JSON.stringify(render(row)))));
    if (!written) throw keyNotFound();
  } catch (error) {
    start.claim.release();
    throw error;
  }
  return reply.code(status).type(JSON_TYPE).send(body);
}

/** `/v1/account/api-keys`: list, create, read, change, rotate, revoke. */
export async function accountKeyRoutes(app: FastifyInstance, { ctx }: RouteOptions): Promise<void> {
  const read = { onRequest: [requireProvisioningKey(ctx, "keys:read")] };
  const write = { onRequest: [requireProvisioningKey(ctx, "keys:write"), requireIdempotencyKey()] };

  app.get("/", { ...read, schema: { querystring: ListQuery } }, async (request) => {
    const { limit, after } = request.query as z.output<typeof ListQuery>;
    const afterSeq = after === undefined ? 0 : decodeCursor("keys", after);
    const rows = ctx.store.listApiKeys(request.account!.ownerId, afterSeq, limit + 1);
    return pageOf("keys", rows, limit, toWireKey);
  });

  app.post("/", { ...write, schema: { body: CreateApiKeyRequest } }, async (request, reply) => {
    const { key, secret } = newApiKey(request.account!.ownerId, request.body as CreateApiKeyParams, ctx.now());
    return idempotentMutation(
      ctx,
      request,
      reply,
      201,
      (complete) => ctx.store.createApiKey(key, complete),
      (written) => toWireKeyWithSecret(written, secret),
    );
  });

  app.get("/:keyId", read, async (request) => {
    const key = ctx.store.getApiKey(request.account!.ownerId, keyIdOf(request));
    if (!key) throw keyNotFound();
    return toWireKey(key);
  });

  /** PATCH, rotate and revoke: one change of one key, checked and written atomically, replayable by its Idempotency-Key. */
  const changeKey = (
    request: FastifyRequest,
    reply: FastifyReply,
    change: (current: StoredApiKey) => ApiKeyUpdate,
    render: (written: StoredApiKey) => unknown = toWireKey,
  ) =>
    idempotentMutation(ctx, request, reply, 200, (complete) => ctx.store.updateApiKey(request.account!.ownerId, keyIdOf(request), change, complete), render);

  app.patch("/:keyId", { ...write, schema: { body: UpdateApiKeyRequest } }, async (request, reply) => {
    const params = request.body as UpdateApiKeyParams;
    const now = ctx.now();
    return changeKey(request, reply, (current) => applyUpdate(current, params, now));
  });

  app.post("/:keyId/rotate", { ...write, schema: { body: VersionedRequest } }, async (request, reply) => {
    const { expectedVersion } = request.body as VersionedRequest;
    const now = ctx.now();
    const secret = newSecret("regular");
    return changeKey(request, reply, (current) => applyRotate(current, expectedVersion, secret, now), (written) => toWireKeyWithSecret(written, secret));
  });

  app.post("/:keyId/revoke", { ...write, schema: { body: VersionedRequest } }, async (request, reply) => {
    const { expectedVersion } = request.body as VersionedRequest;
    const now = ctx.now();
    return changeKey(request, reply, (current) => applyRevoke(current, expectedVersion, now));
  });
}
