import { z } from "zod";
import { Timestamp } from "./api-key";

/** Usage of one key or one model inside a summary. */
const UsageLine = z.object({ requests: z.number().int(), spentUnits: z.string() });

/**
 * `GET /v1/account/usage/summary`: what the owner's keys spent, in total and per key, model and
 * label value (a key counts under each of its labels; keys without a label are not in `byLabel`).
 */
export const UsageSummary = z.object({
  object: z.literal("usage_summary"),
  ownerId: z.string(),
  requests: z.number().int(),
  spentUnits: z.string(),
  byKey: z.array(
    UsageLine.extend({
      keyId: z.string(),
      /** Whether the key's `expiresAt` has passed. */
      expired: z.boolean().default(false),
      labels: z.record(z.string(), z.string()).default({}),
    }),
  ),
  byModel: z.array(UsageLine.extend({ model: z.string() })),
  byLabel: z.array(UsageLine.extend({ label: z.string(), value: z.string() })).default([]),
  /**
   * What each of the owner's teams was charged (its keys' charged requests while members), by team;
   * a gateway without teams sends nothing, read as [].
   */
  byTeam: z.array(UsageLine.extend({ teamId: z.string(), name: z.string().nullable() })).default([]),
});
export type UsageSummary = z.infer<typeof UsageSummary>;

/** `GET /v1/account/metrics`: counters of the owner's keys and model requests. */
export const Metrics = z.object({
  object: z.literal("metrics"),
  ownerId: z.string(),
  keys: z.object({ active: z.number().int(), disabled: z.number().int(), revoked: z.number().int() }),
  requests: z.object({
    total: z.number().int(),
    succeeded: z.number().int(),
    /** Requests refused by a policy (model not allowed, spend limit reached). */
    rejected: z.number().int(),
  }),
  spentUnits: z.string(),
});
export type Metrics = z.infer<typeof Metrics>;

/** One row of `GET /v1/account/logs`. Content is present only when the key's logging policy asked for it. */
export const LogEntry = z.object({
  object: z.literal("request_log"),
  id: z.string(),
  keyId: z.string(),
  model: z.string(),
  status: z.number().int(),
  costUnits: z.string(),
  createdAt: Timestamp,
  request: z.object({ input: z.string() }).nullable(),
  response: z.object({ text: z.string() }).nullable(),
  /**
   * The request's fields that did not reach the model (docs/operators/upstream.md#translation-by-meaning): hints
   * its wire has no setting for and, on a model that drops them, fields it cannot carry — as the
   * `x-gateway-dropped-fields` header named them. Empty when everything was carried (and absent
   * from gateways older than the field, which carried everything they did not refuse).
   */
  droppedFields: z.array(z.string()).default([]),
});
export type LogEntry = z.infer<typeof LogEntry>;

/** Query of `GET /v1/account/logs`: a list query, optionally narrowed to one key. */
export const LogsQuery = z.strictObject({
  keyId: z.string().min(1).max(64).optional(),
});

/** One spend window of a key (`GET /v1/account/api-keys/{keyId}/spend-windows`): what it spent from `startedAt` to `endsAt`. */
export const SpendWindow = z.object({
  object: z.literal("spend_window"),
  startedAt: Timestamp,
  /** Null for a lifetime window (reset period `never`). */
  endsAt: Timestamp.nullable(),
  requests: z.number().int(),
  spentUnits: z.string(),
});
export type SpendWindow = z.infer<typeof SpendWindow>;

/** Query of the spend-window history: the most recent `limit` windows of the key's current period, newest first. */
export const SpendWindowsQuery = z.strictObject({
  limit: z.coerce
    .number({ error: "expected an integer from 1 to 100" })
    .int({ error: "expected an integer from 1 to 100" })
    .min(1, { error: "expected an integer from 1 to 100" })
    .max(100, { error: "expected an integer from 1 to 100" })
    .default(12),
});

/** Bucket sizes of the usage timeline, and how far back each may reach. */
export const TIMELINE_BUCKETS = { hour: { ms: 3_600_000, maxBuckets: 24 * 31 }, day: { ms: 86_400_000, maxBuckets: 366 } } as const;
export type TimelineBucket = keyof typeof TIMELINE_BUCKETS;

/**
 * Query of `GET /v1/account/usage/timeline`: `bucket` (`hour` or `day`), optionally one key, and the
 * span [`since`, `until`) — by default the last 24 hours (hour) or 30 days (day), at most 31 days of
 * hours or 366 days.
 */
export const TimelineQuery = z.strictObject({
  bucket: z.enum(["hour", "day"], { error: 'expected "hour" or "day"' }).default("hour"),
  keyId: z.string().min(1).max(64).optional(),
  since: Timestamp.optional(),
  until: Timestamp.optional(),
});

/** One bucket of one model and status: the requests that began in it and what they cost. */
export const TimelinePoint = z.object({
  startedAt: Timestamp,
  model: z.string(),
  status: z.number().int(),
  requests: z.number().int(),
  costUnits: z.string(),
});
export type TimelinePoint = z.infer<typeof TimelinePoint>;

/**
 * `GET /v1/account/usage/timeline`: the owner's (or one key's) model requests per bucket, model and
 * status, counted from the request logs (so as far back as each key's logging policy keeps them),
 * oldest first; buckets without requests are left out.
 */
export const UsageTimeline = z.object({
  object: z.literal("usage_timeline"),
  bucket: z.enum(["hour", "day"]),
  since: Timestamp,
  until: Timestamp,
  data: z.array(TimelinePoint),
});
export type UsageTimeline = z.infer<typeof UsageTimeline>;
