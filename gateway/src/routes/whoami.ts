import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { NoQuery, Principal } from "@gateway-keys/contract";
import { requireProvisioningKey } from "../auth/hooks";
import { accountOf } from "../context";
import type { RouteOptions } from "./account-keys";

/**
 * `GET /v1/account/whoami` (extension): the owner and scopes of the calling provisioning key. Any
 * scope may call it, so a client can tell "this key is gone" from "this key belongs to another owner".
 */
export const whoamiRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { ctx }) => {
  app.get(
    "/whoami",
    { onRequest: [requireProvisioningKey(ctx, "any")], schema: { querystring: NoQuery, response: { 200: Principal } } },
    async (request): Promise<Principal> => {
      const account = accountOf(request);
      return { object: "provisioning_key", ownerId: account.ownerId, scopes: [...account.scopes], hint: account.hint };
    },
  );
};
