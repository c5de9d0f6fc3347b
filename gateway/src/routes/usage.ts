import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  formatUnits,
  KeyState,
  LogEntry,
  Metrics,
  ROUTES,
  TIMELINE_BUCKETS,
  UsageSummary,
  spendWindowOf,
  windowStartOf,
  type SpendWindow,
  type UsageTimeline,
} from "@gateway-keys/contract";
import { teamFilterOf, viewsTeam } from "../auth/team-view";
import { accountOf, type AccountPrincipal } from "../context";
import { GatewayError } from "../errors";
import { isExpired } from "../keys/key-records";
import type { SpendDay, Store, StoredApiKey, StoredLogEntry, UsageLine } from "../store/types";
import { routeOf, type RoutePluginOptions } from "./route-table";
import { decodeCursor, pageOf } from "./pagination";
import { viewedKey } from "./viewed-records";

function sumBy<Line extends UsageLine, Group extends string>(lines: Line[], group: (line: Line) => Group) {
  const sums = new Map<Group, { requests: number; spent: bigint }>();
  for (const line of lines) {
    const sum = sums.get(group(line)) ?? { requests: 0, spent: 0n };
    sum.requests += line.succeeded;
    sum.spent += line.spentMicros;
    sums.set(group(line), sum);
  }
  return [...sums].map(([name, sum]) => ({ name, requests: sum.requests, spentUnits: formatUnits(sum.spent) }));
}

/** Every key of the owner the caller may view, by id. */
async function keysOf(store: Store, account: AccountPrincipal): Promise<Map<string, StoredApiKey>> {
  const keys = new Map<string, StoredApiKey>();
  for (let afterSeq = 0; ; ) {
    const page = await store.listApiKeys(account.ownerId, afterSeq, 1000, { teamIds: teamFilterOf(account) });
    for (const key of page) keys.set(key.id, key);
    if (page.length < 1000) return keys;
    afterSeq = page[page.length - 1]!.seq;
  }
}

/** The spend days of a key grouped into the windows of its period, newest first, at most `limit`. */
function windowsOf(key: StoredApiKey, days: SpendDay[], now: number, limit: number): SpendWindow[] {
  const windows = new Map<number, SpendWindow>();
  // The current window is always listed, even before its first request.
  const current = windowStartOf(key.resetPeriod, now);
  const windowAt = (start: number): SpendWindow => {
    let window = windows.get(start);
    if (!window) {
      const { startedAt, endsAt } = spendWindowOf(key.resetPeriod, start, key.createdAt);
      window = {
        object: "spend_window",
        startedAt: new Date(startedAt).toISOString(),
        endsAt: endsAt === null ? null : new Date(endsAt).toISOString(),
        requests: 0,
        spentUnits: "0",
      };
      windows.set(start, window);
    }
    return window;
  };
  windowAt(current);
  const spent = new Map<number, bigint>();
  for (const day of days) {
    const start = windowStartOf(key.resetPeriod, day.day);
    windowAt(start).requests += day.requests;
    spent.set(start, (spent.get(start) ?? 0n) + day.spentMicros);
  }
  for (const [start, micros] of spent) windowAt(start).spentUnits = formatUnits(micros);
  return [...windows.entries()].sort(([a], [b]) => b - a).slice(0, limit).map(([, window]) => window);
}

/** Keys counted per state, every state named. */
function countByState(keys: Iterable<StoredApiKey>): Record<KeyState, number> {
  const counts = Object.fromEntries(KeyState.options.map((state) => [state, 0])) as Record<KeyState, number>;
  for (const key of keys) counts[key.state] += 1;
  return counts;
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
    droppedFields: [...entry.droppedFields],
    ...(entry.route !== null && { route: entry.route }),
  };
}

/** `/v1/account/usage/summary`, `/v1/account/metrics`, `/v1/account/logs`: all need `usage:read`. */
export const usageRoutes: FastifyPluginAsyncZod<RoutePluginOptions> = async (app, { ctx }) => {
  /** The owner's usage lines the caller may view: every one, or those of `keys` (the caller's, when limited to some teams). */
  const viewedUsageLines = async (account: AccountPrincipal, keys: ReadonlyMap<string, StoredApiKey> | undefined): Promise<UsageLine[]> => {
    const lines = await ctx.store.usageLines(account.ownerId);
    return account.onlyTeams === null ? lines : lines.filter((line) => keys?.has(line.keyId));
  };

  app.route({
    ...routeOf(ctx, ROUTES.usageSummary),
    handler: async (request): Promise<UsageSummary> => {
      const account = accountOf(request);
      const { ownerId } = account;
      const keys = await keysOf(ctx.store, account);
      // Usage counts billed requests: those the model answered. Refusals appear in metrics.
      const lines = (await viewedUsageLines(account, keys)).filter((line) => line.succeeded > 0 || line.spentMicros > 0n);
      const total = lines.reduce((sum, line) => sum + line.spentMicros, 0n);
      const now = ctx.now();
      const teamSpend = [...(await ctx.store.teams.spentByTeam(ownerId))].filter(([teamId]) => viewsTeam(account, teamId));
      const teamNames = new Map((await ctx.store.teams.listTeams(ownerId, 0, 10_000)).map((team) => [team.id, team.name]));
      // A key counts under each of its labels: one line per label name and value.
      const labelLines = lines.flatMap((line) =>
        Object.entries(keys.get(line.keyId)?.labels ?? {}).map(([label, value]) => ({ ...line, group: JSON.stringify([label, value]) })),
      );
      return {
        object: "usage_summary",
        ownerId,
        requests: lines.reduce((sum, line) => sum + line.succeeded, 0),
        spentUnits: formatUnits(total),
        byKey: sumBy(lines, (line) => line.keyId).map(({ name, ...rest }) => {
          const key = keys.get(name);
          return { keyId: name, ...rest, expired: key ? isExpired(key, now) : false, labels: { ...key?.labels } };
        }),
        byModel: sumBy(lines, (line) => line.model).map(({ name, ...rest }) => ({ model: name, ...rest })),
        byLabel: sumBy(labelLines, (line) => line.group).map(({ name, ...rest }) => {
          const [label, value] = JSON.parse(name) as [string, string];
          return { label, value, ...rest };
        }),
        // A deleted team keeps its line (its spend happened), without a name.
        byTeam: teamSpend.map(([teamId, spent]) => ({
          teamId,
          name: teamNames.get(teamId) ?? null,
          requests: spent.requests,
          spentUnits: formatUnits(spent.spentMicros),
        })),
      };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.spendWindows),
    handler: async (request) => {
      const key = await viewedKey(ctx, accountOf(request), request.params.keyId);
      const now = ctx.now();
      // Enough days to fill `limit` windows of the key's period (a lifetime window needs them all).
      const days = await ctx.store.spendDays(key.id, key.resetPeriod === "never" ? 0 : windowStartOf(key.resetPeriod, now) - request.query.limit * 31 * 86_400_000);
      const data = windowsOf(key, days, now, request.query.limit);
      return { object: "list" as const, data, has_more: false, next_cursor: null };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.usageTimeline),
    handler: async (request): Promise<UsageTimeline> => {
      const account = accountOf(request);
      const { bucket, keyId, since, until } = request.query;
      if (keyId !== undefined) await viewedKey(ctx, account, keyId);
      const { ms, maxBuckets } = TIMELINE_BUCKETS[bucket];
      const now = ctx.now();
      // Whole buckets: the span runs from a bucket's start to the end of the bucket that holds `until`.
      const end = Math.ceil((until === undefined ? now + 1 : Date.parse(until)) / ms) * ms;
      const start = Math.floor((since === undefined ? end - (bucket === "hour" ? 24 : 30) * ms : Date.parse(since)) / ms) * ms;
      if (start >= end || (end - start) / ms > maxBuckets) {
        throw new GatewayError(
          "validation_failed",
          `Invalid query parameters: since: must be before until, and the span at most ${maxBuckets} ${bucket}s.`,
          { param: "since" },
        );
      }
      const rows = await ctx.store.logTimeline({ ownerId: account.ownerId, keyId, teamIds: teamFilterOf(account), since: start, until: end, bucketMs: ms, now });
      return {
        object: "usage_timeline",
        bucket,
        since: new Date(start).toISOString(),
        until: new Date(end).toISOString(),
        data: rows.map((row) => ({
          startedAt: new Date(row.bucket).toISOString(),
          model: row.model,
          status: row.status,
          requests: row.requests,
          costUnits: formatUnits(row.costMicros),
        })),
      };
    },
  });

  app.route({
    ...routeOf(ctx, ROUTES.metrics),
    handler: async (request): Promise<Metrics> => {
      const account = accountOf(request);
      const { ownerId } = account;
      // A caller limited to some teams counts their keys; anyone else, every key, counted by the store.
      const keys = account.onlyTeams === null ? undefined : await keysOf(ctx.store, account);
      const lines = await viewedUsageLines(account, keys);
      return {
        object: "metrics",
        ownerId,
        keys: keys === undefined ? await ctx.store.countApiKeysByState(ownerId) : countByState(keys.values()),
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
      const account = accountOf(request);
      const { limit, after, keyId } = request.query;
      if (keyId !== undefined) await viewedKey(ctx, account, keyId);
      const beforeSeq = after === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor("logs", after);
      const rows = await ctx.store.listLogs({ ownerId: account.ownerId, keyId, teamIds: teamFilterOf(account), beforeSeq, limit: limit + 1, now: ctx.now() });
      return pageOf("logs", rows, limit, toWireLog);
    },
  });
};
