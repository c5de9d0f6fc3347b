import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { ROUTES } from "@gateway-keys/contract";
import { toWireAuditEvent, verifyAuditChain } from "../audit/chain";
import { accountOf } from "../context";
import { decodeCursor, pageOf } from "./pagination";
import { routeOf, type RoutePluginOptions } from "./route-table";

/** `/v1/account/audit-events`: the owner's account changes, newest first, and the check of their chain. */
export const auditEventRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.listAuditEvents),
    handler: async (request) => {
      const { limit, after, keyId, teamId, action, from, to } = request.query;
      const beforeSeq = after === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor("audit", after);
      const rows = await ctx.store.transaction((tx) =>
        tx.events.listAuditEvents({
          ownerId: accountOf(request).ownerId,
          beforeSeq,
          limit: limit + 1,
          ...(keyId !== undefined && { keyId }),
          ...(teamId !== undefined && { teamId }),
          ...(action !== undefined && { action }),
          ...(from !== undefined && { from: Date.parse(from) }),
          ...(to !== undefined && { to: Date.parse(to) }),
        }),
      );
      return pageOf("audit", rows, limit, toWireAuditEvent);
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.verifyAuditEvents),
    handler: async (request) => verifyAuditChain(ctx.store, accountOf(request).ownerId),
  });
};
