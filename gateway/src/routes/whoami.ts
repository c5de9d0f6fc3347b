import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { Principal, ROUTES } from "@gateway-keys/contract";
import { accountOf } from "../context";
import { routeOf, type RoutePluginOptions } from "./route-table";

/**
 * `GET /v1/account/whoami` (extension): the owner and scopes of the calling provisioning key. Any
 * scope may call it, so a client can tell "this key is gone" from "this key belongs to another owner".
 */
export const whoamiRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.whoami),
    handler: async (request): Promise<Principal> => {
      const account = accountOf(request);
      return { object: "provisioning_key", ownerId: account.ownerId, scopes: [...account.scopes], hint: account.hint };
    },
  });
};
