import type { FastifyRequest } from "fastify";
import { accountOf } from "../context";
import type { AuditOrigin } from "./chain";

/** Who made an account API change, from the request: its provisioning key's id and hint (never the secret). */
export function originOf(request: FastifyRequest): AuditOrigin {
  const account = accountOf(request);
  return {
    actor: { kind: "provisioning_key", id: account.provisioningKeyId, hint: account.hint },
    idempotencyKey: request.idempotencyKey,
    requestId: request.id,
  };
}
