import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { formatUnits, LogEntry, Metrics, ROUTES, UsageSummary } from "@gateway-keys/contract";
import { accountOf } from "../context";
import { GatewayError } from "../errors";
import type { StoredLogEntry, UsageLine } from "../store/types";
import { routeOf, type RoutePluginOptions } from "./route-table";
import { decodeCursor, pageOf } from "./pagination";

function sumBy<Group extends string>(lines: UsageLine[], group: (line: UsageLine) => Group) {
  const sums = new Map<Group, { requests: number; spent: bigint }>();
  for (const line of lines) {
    const sum = sums.get(group(line)) ?? { requests: 0, spent: 0n };
    sum.requests += line.succeeded;
    sum.spent += line.spentMicros;
    sums.set(group(line), sum);
  }
  return [...sums].map(([name, sum]) => ({ name, requests: sum.requests, spentUnits: formatUnits(sum.spent) }));
}

function toWireLog(entry: StoredLogEntry): LogEntry {
  return {
    object: "request_log",
    id: entry.id,
    keyId: entry.keyId,
    model: entry.model,
    status: entry.status,
    costUnits: formatUnits(entry.costMicros),
    createdAt: new Date(entry.createdAt).toISOString(),
    request: entry.requestInput === null ? null : { input: entry.requestInput },
    response: entry.responseText === null ? null : { text: entry.responseText },
  };
}

/** `/v1/account/usage/summary`, `/v1/account/metrics`, `/v1/account/logs`: all need `usage:read`. */
export const usageRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  app.route({
    ...routeOf(ctx, ROUTES.usageSummary),
    handler: async (request): Promise<UsageSummary> => {
      const { ownerId } = accountOf(request);
      // Usage counts billed requests: those the model answered. Refusals appear in metrics.
      const lines = (await ctx.store.usageLines(ownerId)).filter((line) => line.succeeded > 0 || line.spentMicros > 0n);
      const total = lines.reduce((sum, line) => sum + line.spentMicros, 0n);
      return {
        object: "usage_summary",
        ownerId,
        requests: lines.reduce((sum, line) => sum + line.succeeded, 0),
        spentUnits: formatUnits(total),
        byKey: sumBy(lines, (line) => line.keyId).map(({ name, ...rest }) => ({ keyId: name, ...rest })),
        byModel: sumBy(lines, (line) => line.model).map(({ name, ...rest }) => ({ model: name, ...rest })),
      };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.metrics),
    handler: async (request): Promise<Metrics> => {
      const { ownerId } = accountOf(request);
      const lines = await ctx.store.usageLines(ownerId);
      return {
        object: "metrics",
        ownerId,
        keys: await ctx.store.countApiKeysByState(ownerId),
        requests: {
          total: lines.reduce((sum, line) => sum + line.total, 0),
          succeeded: lines.reduce((sum, line) => sum + line.succeeded, 0),
          rejected: lines.reduce((sum, line) => sum + line.rejected, 0),
        },
        spentUnits: formatUnits(lines.reduce((sum, line) => sum + line.spentMicros, 0n)),
      };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.logs),
    handler: async (request) => {
      const { ownerId } = accountOf(request);
      const { limit, after, keyId } = request.query;
      if (keyId !== undefined && !(await ctx.store.getApiKey(ownerId, keyId))) {
        throw new GatewayError("key_not_found", "No API key with this id belongs to your account.", { param: "keyId" });
      }
      const beforeSeq = after === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor("logs", after);
      const rows = await ctx.store.listLogs({ ownerId, keyId, beforeSeq, limit: limit + 1, now: ctx.now() });
      return pageOf("logs", rows, limit, toWireLog);
    },
  });
};
