import type { FastifyInstance } from "fastify";
import type { Principal } from "@gateway-keys/contract";
import { requireProvisioningKey } from "../auth/hooks";
import type { RouteOptions } from "./account-keys";

/**
 * `GET /v1/account/whoami` (extension): the owner and scopes of the calling provisioning key. Any
 * scope may call it, so a client can tell "this key is gone" from "this key belongs to another owner".
 */
export async function whoamiRoutes(app: FastifyInstance, { ctx }: RouteOptions): Promise<void> {
  app.get("/whoami", { onRequest: [requireProvisioningKey(ctx, "any")] }, async (request): Promise<Principal> => {
    const account = request.account!;
    return { object: "provisioning_key", ownerId: account.ownerId, scopes: [...account.scopes], hint: account.hint };
  });
}
