import type { FastifyRequest } from "fastify";
import { accountOf } from "../context";
import { GatewayError } from "../errors";
import type { AuditOrigin } from "./chain";

/** Who made an account API change, from the request: its provisioning key's id and hint (never the secret). */
export function originOf(request: FastifyRequest): AuditOrigin {
  const account = accountOf(request);
  // A person signed in to the console only reads (auth/hooks.ts): a change in their name is a wiring mistake.
  if (account.provisioningKeyId === null || account.hint === null) {
    throw new GatewayError("internal_error", "The gateway failed to handle the request (a change without a provisioning key); it is safe to retry.");
  }
  return {
    actor: { kind: "provisioning_key", id: account.provisioningKeyId, hint: account.hint },
    idempotencyKey: request.idempotencyKey,
    requestId: request.id,
  };
}
