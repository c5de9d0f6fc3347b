import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { Principal, ROUTES } from "@gateway-keys/contract";
import { accountOf } from "../context";
import { GatewayError } from "../errors";
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
      // A person signed in to the console never gets here (auth/hooks.ts lets a person read only what a read scope guards).
      if (account.hint === null) throw new GatewayError("missing_scope", "whoami describes a provisioning key; this console session has none.");
      return { object: "provisioning_key", ownerId: account.ownerId, scopes: [...account.scopes], hint: account.hint };
    },
  });
};
