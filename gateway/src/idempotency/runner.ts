import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import { canonicalJson } from "@gateway-keys/contract";
import { accountOf, idempotencyKeyOf, type GatewayContext } from "../context";
import { sha256 } from "../crypto";
import { GatewayError } from "../errors";
import type { IdempotencyScope, StoreTransaction } from "../store/types";
import { IDEMPOTENCY_HEADER_NAME } from "../http/idempotency-header";

/** What an idempotent operation answered: now, or the first time it ran (`replayed`). */
export interface IdempotentOutcome<Body> {
  status: number;
  body: Body;
  replayed: boolean;
}

/**
 * The operation a request performs, as its idempotency scope names it: the route pattern (without
 * a trailing slash) and the decoded path parameters. So `/api-keys/` and `/api-keys`, or a key id
 * sent percent-encoded and plain, are one operation, and one Idempotency-Key can never run it twice.
 */
function operationOf(request: FastifyRequest): string {
  const pattern = (request.routeOptions.url ?? request.url).replace(/(.)\/+$/, "$1");
  return `${pattern} ${canonicalJson(request.params ?? {})}`;
}

function additionalData(scope: IdempotencyScope): string {
  return `${scope.ownerId}\n${scope.method}\n${scope.operation}\n${scope.key}`;
}

/**
 * Runs one account mutation under the request's Idempotency-Key as one unit of work: in a single
 * store transaction it claims the key, runs `mutate`, and records the answer (`status` and the
 * body, sealed) — so a crash can never leave a key changed without its reply, and two concurrent
 * duplicates cannot both run (the second waits, then replays). A key already used for this
 * operation replays the first answer for the same body, and is refused for a different one. When
 * `mutate` throws, nothing is written and the error propagates; a retry runs the operation again.
 */
export async function runIdempotent<Body extends z.ZodType>(
  ctx: GatewayContext,
  request: FastifyRequest,
  answer: { status: number; body: Body },
  mutate: (tx: StoreTransaction) => Promise<z.output<Body>>,
  /** The request as the operation reads it, where two spellings mean the same (see the create route). Default: the parsed body. */
  meaning: unknown = request.body ?? null,
): Promise<IdempotentOutcome<z.output<Body>>> {
  const scope: IdempotencyScope = {
    ownerId: accountOf(request).ownerId,
    method: request.method,
    operation: operationOf(request),
    key: idempotencyKeyOf(request),
  };
  const fingerprint = sha256(canonicalJson(meaning));
  const now = ctx.now();
  const recorded = await ctx.store.transaction(async (tx) => {
    const earlier = await tx.claimIdempotencyKey({ ...scope, fingerprint, now, expiresAt: now + ctx.idempotencyTtlMs });
    if (earlier) return { earlier };
    const body = await mutate(tx);
    const sealedBody = ctx.cipher.seal(JSON.stringify(body), additionalData(scope));
    await tx.completeIdempotencyKey(scope, { status: answer.status, sealedBody });
    return { body };
  });
  if (!recorded.earlier) return { status: answer.status, body: recorded.body, replayed: false };

  const { earlier } = recorded;
  if (!earlier.fingerprint.equals(fingerprint)) {
    throw new GatewayError(
      "idempotency_key_reused",
      "This Idempotency-Key was used with a different request body; use a new key for a new operation.",
      { param: IDEMPOTENCY_HEADER_NAME },
    );
  }
  const opened = ctx.cipher.open(earlier.sealedBody, additionalData(scope));
  if (opened === undefined) {
    request.log.error("a stored idempotent reply could not be decrypted; was the encryption key changed?");
    throw new GatewayError(
      "internal_error",
      "The stored reply for this Idempotency-Key cannot be read by this server; list the keys to see whether the operation happened.",
    );
  }
  return { status: earlier.status, body: answer.body.parse(JSON.parse(opened)), replayed: true };
}
