import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from "@gateway-keys/contract";
import type { GatewayContext } from "../context";
import { sha256 } from "../crypto";
import { GatewayError } from "../errors";
import type { CompleteReply, IdempotencyScope, StoredApiKey } from "../store/types";
import { canonicalJson } from "./canonical-json";

/**
 * How long a pending claim blocks retries before it is presumed abandoned. A mutation finishes in
 * milliseconds; this only matters when a process died between claim and commit.
 */
const CLAIM_LEASE_MS = 60_000;

const HEADER_NAME = "Idempotency-Key";

/**
 * Account mutations: the `Idempotency-Key` header is required and well-formed. Runs before body
 * validation, so a missing header is reported first.
 */
export function requireIdempotencyKey(): onRequestAsyncHookHandler {
  return async (request) => {
    const value = request.headers["idempotency-key"];
    if (value === undefined || value === "") {
      throw new GatewayError(
        "missing_idempotency_key",
        "Account mutations require an Idempotency-Key header: a unique value per logical operation, reused only to retry it.",
        { param: HEADER_NAME },
      );
    }
    if (typeof value !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
      throw new GatewayError("validation_failed", "Idempotency-Key must be 1 to 255 visible ASCII characters, sent once.", {
        param: HEADER_NAME,
      });
    }
    request.idempotencyKey = value;
  };
}

/** A claimed idempotency key: complete it inside the mutation, or release it when the mutation fails. */
export interface IdempotencyClaimHandle {
  /** The reply to store with the mutation; `render` gives the exact JSON body that will be sent. */
  complete(status: number, render: (written: StoredApiKey) => string): CompleteReply;
  /** Frees the key so a retry runs the mutation again. Safe to call after a completed claim (no-op). */
  release(): void;
}

export type IdempotencyStart =
  | { kind: "claimed"; claim: IdempotencyClaimHandle }
  | { kind: "replay"; status: number; body: string };

function additionalData(scope: IdempotencyScope): string {
  return `${scope.ownerId}\n${scope.method}\n${scope.path}\n${scope.key}`;
}

/**
 * Claims the request's idempotency key for its owner, method and path, or answers from a previous
 * attempt: the stored reply for the same body, 422 for a different body, 409 while the first
 * attempt is still running. The claim is an atomic insert, so of two concurrent duplicates one wins.
 */
export function beginIdempotentRequest(ctx: GatewayContext, request: FastifyRequest): IdempotencyStart {
  const scope: IdempotencyScope = {
    ownerId: request.account!.ownerId,
    method: request.method,
    path: request.url.split("?", 1)[0]!,
    key: request.idempotencyKey!,
  };
  const fingerprint = sha256(canonicalJson(request.body ?? null));
  const now = ctx.now();
  const outcome = ctx.store.claimIdempotencyKey({
    ...scope,
    fingerprint,
    now,
    expiresAt: now + ctx.idempotencyTtlMs,
    leaseUntil: now + CLAIM_LEASE_MS,
  });
  if (outcome.kind === "claimed") {
    return {
      kind: "claimed",
      claim: {
        complete: (status, render) => (row) => ({
          scope,
          status,
          sealedReply: ctx.cipher.seal(render(row), additionalData(scope)),
        }),
        release: () => ctx.store.releaseIdempotencyKey(scope),
      },
    };
  }
  if (!outcome.fingerprint.equals(fingerprint)) {
    throw new GatewayError(
      "idempotency_key_reused",
      "This Idempotency-Key was used with a different request body; use a new key for a new operation.",
      { param: HEADER_NAME },
    );
  }
  if (outcome.kind === "pending") {
    throw new GatewayError("idempotency_in_flight", "A request with this Idempotency-Key is still being processed; retry shortly.", {
      headers: { "retry-after": "1" },
    });
  }
  const body = ctx.cipher.open(outcome.sealedReply, additionalData(scope));
  if (body === undefined) {
    request.log.error("a stored idempotent reply could not be decrypted; was the encryption key changed?");
    throw new GatewayError(
      "internal_error",
      "The stored reply for this Idempotency-Key cannot be read by this server; list the keys to see whether the operation happened.",
    );
  }
  return { kind: "replay", status: outcome.status, body };
}

/** Sends a stored reply exactly as first sent, marked as a replay. */
export function sendReplay(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header(REPLAYED_HEADER, "true")
    .type("application/json; charset=utf-8")
    .send(body);
}
