import { z } from "zod";
import { BudgetAlertThresholds, ExpiryWarningSeconds, RotateAfterSeconds } from "./key-alerts";
import { DECIMAL_UNITS_PATTERN, formatUnits, parseUnits } from "./units";

/** Bounds the contract puts on key fields (the seed leaves them open; docs/api/limits.md#limits-and-bounds records them). */
export const LIMITS = {
  nameMaxLength: 128,
  retentionDaysMin: 1,
  retentionDaysMax: 365,
  modelIdsMax: 100,
  modelIdMaxLength: 128,
  labelsMax: 32,
  labelKeyMaxLength: 63,
  labelValueMaxLength: 256,
  requestsPerMinuteMax: 1_000_000,
  tokensPerMinuteMax: 10_000_000_000,
  maxConcurrentRequestsMax: 10_000,
} as const;

/** Modes of a model policy: `all` (the seed's) and `allowList` (this gateway's extension). */
export const MODEL_POLICY_MODES = ["all", "allowList"] as const;

/** Currencies a spend policy may be written in: only the gateway's own credit unit. */
export const CURRENCIES = ["unit"] as const;

/** Human-readable label of a key: 1 to 128 characters, no control characters. */
export const KeyName = z
  .string({ error: "expected a string" })
  .min(1, { error: "must not be empty" })
  .max(LIMITS.nameMaxLength, { error: `must be at most ${LIMITS.nameMaxLength} characters` })
  .regex(/^[^\p{Cc}]*$/u, { error: "must not contain control characters" });

/**
 * A positive amount of credits as a decimal string, e.g. "100" or "12.5", parsed into its one
 * canonical spelling ("100.50" becomes "100.5"), so no consumer ever compares two spellings of one
 * amount or parses it again.
 */
export const LimitUnits = z
  .string({ error: 'expected a decimal string such as "100" or "12.5"' })
  .regex(DECIMAL_UNITS_PATTERN, {
    error: 'expected a decimal string such as "100" or "12.5" (at most 12 integer and 6 fraction digits, no sign or exponent)',
  })
  // A transform runs only when every check before it passed, so the text here matches the pattern.
  .transform((text, ctx) => {
    const micros = parseUnits(text);
    if (micros > 0n) return formatUnits(micros);
    ctx.issues.push({ code: "custom", message: "must be greater than 0", input: text });
    return z.NEVER;
  });

/**
 * When a spend limit starts again: `never` (a lifetime cap), or at each UTC calendar boundary —
 * `daily` at 00:00, `weekly` at 00:00 on Monday, `monthly` at 00:00 on the 1st.
 */
export const RESET_PERIODS = ["never", "daily", "weekly", "monthly"] as const;
export const ResetPeriod = z.enum(RESET_PERIODS, { error: 'expected "never", "daily", "weekly" or "monthly"' });
export type ResetPeriod = z.infer<typeof ResetPeriod>;

/** How many windows one spend policy may hold (one per reset period at most). */
export const SPEND_WINDOWS_MAX = 4;

const Currency = z.enum(CURRENCIES, { error: 'expected "unit" (the gateway\'s credit unit)' });

/** One window of a spend policy: a cap of credits that starts again at each `resetPeriod` boundary. */
export const SpendWindowLimit = z.strictObject({
  limitUnits: LimitUnits,
  resetPeriod: ResetPeriod.default("never"),
});
export type SpendWindowLimit = z.output<typeof SpendWindowLimit>;

/** A spend policy of one window, as the seed writes it: `{ limitUnits, currency, resetPeriod }`. */
export interface SingleWindowSpendPolicy {
  limitUnits: string;
  currency: (typeof CURRENCIES)[number];
  resetPeriod: ResetPeriod;
}
/** A spend policy of two to four windows, each enforced: `{ currency, windows: [...] }`, ordered as {@link RESET_PERIODS}. */
export interface MultiWindowSpendPolicy {
  currency: (typeof CURRENCIES)[number];
  windows: SpendWindowLimit[];
}

/** Puts windows in their one order, {@link RESET_PERIODS}' (never, daily, weekly, monthly). */
export function orderSpendWindows<Window extends { resetPeriod: string }>(windows: readonly Window[]): Window[] {
  const rank = (period: string) => {
    const index = (RESET_PERIODS as readonly string[]).indexOf(period);
    return index === -1 ? RESET_PERIODS.length : index;
  };
  return [...windows].sort((a, b) => rank(a.resetPeriod) - rank(b.resetPeriod));
}

/**
 * Spending cap of a key or a team, in credits. The single-window form `{ limitUnits, currency,
 * resetPeriod }` caps the key's lifetime or each calendar window; the windows form `{ currency,
 * windows: [{ limitUnits, resetPeriod }, …] }` holds 1 to 4 windows of distinct reset periods, all
 * enforced together (e.g. 50 a day and 1,000 a month). One window in the windows form reads back in
 * the single form; two or more read back ordered never, daily, weekly, monthly.
 */
export const SpendPolicy = z
  .strictObject({
    limitUnits: LimitUnits.optional(),
    currency: Currency.default("unit"),
    resetPeriod: ResetPeriod.optional(),
    windows: z
      .array(SpendWindowLimit, { error: 'expected an array of windows such as [{ "limitUnits": "50", "resetPeriod": "daily" }]' })
      .min(1, { error: "must hold at least one window" })
      .max(SPEND_WINDOWS_MAX, { error: `must hold at most ${SPEND_WINDOWS_MAX} windows` })
      .optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.windows === undefined) {
      if (policy.limitUnits === undefined) {
        ctx.addIssue({ code: "custom", path: ["limitUnits"], message: 'expected a decimal string such as "100" (or "windows": [...] for several windows)' });
      }
      return;
    }
    for (const field of ["limitUnits", "resetPeriod"] as const) {
      if (policy[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: "must not be set beside windows: give each window its own limitUnits and resetPeriod" });
      }
    }
    const seen = new Set<string>();
    policy.windows.forEach((window, index) => {
      if (seen.has(window.resetPeriod)) {
        ctx.addIssue({ code: "custom", path: ["windows", index, "resetPeriod"], message: `must differ between windows: "${window.resetPeriod}" is repeated` });
      }
      seen.add(window.resetPeriod);
    });
  })
  .transform((policy): SingleWindowSpendPolicy | MultiWindowSpendPolicy => {
    if (policy.windows === undefined) return { limitUnits: policy.limitUnits!, currency: policy.currency, resetPeriod: policy.resetPeriod ?? "never" };
    if (policy.windows.length === 1) return { ...policy.windows[0]!, currency: policy.currency };
    return { currency: policy.currency, windows: orderSpendWindows(policy.windows) };
  });
export type SpendPolicy = z.output<typeof SpendPolicy>;
export type SpendPolicyInput = z.input<typeof SpendPolicy>;

/**
 * The windows of a spend policy in their one order, whichever form it was written or read in: the
 * one list every consumer (enforcement, records, alerts, providers) reads. None for no policy.
 * @example spendWindowsOf({ limitUnits: "100", currency: "unit", resetPeriod: "never" }) // [{ limitUnits: "100", resetPeriod: "never" }]
 */
export function spendWindowsOf<Period extends string = ResetPeriod>(
  policy: { limitUnits?: string; resetPeriod?: Period; windows?: readonly { limitUnits: string; resetPeriod: Period }[] } | null | undefined,
): { limitUnits: string; resetPeriod: Period }[] {
  if (!policy) return [];
  if (policy.windows !== undefined) return orderSpendWindows(policy.windows.map(({ limitUnits, resetPeriod }) => ({ limitUnits, resetPeriod })));
  if (policy.limitUnits === undefined) return [];
  return [{ limitUnits: policy.limitUnits, resetPeriod: policy.resetPeriod ?? ("never" as Period) }];
}

/** What the gateway stores about requests made with a key, and for how long. */
export const LoggingPolicy = z.strictObject({
  storeRequest: z.boolean({ error: "expected true or false" }).default(false),
  storeResponse: z.boolean({ error: "expected true or false" }).default(false),
  retentionDays: z
    .number({ error: "expected an integer number of days" })
    .int({ error: "expected an integer number of days" })
    .min(LIMITS.retentionDaysMin, { error: `must be between ${LIMITS.retentionDaysMin} and ${LIMITS.retentionDaysMax}` })
    .max(LIMITS.retentionDaysMax, { error: `must be between ${LIMITS.retentionDaysMin} and ${LIMITS.retentionDaysMax}` })
    .default(30),
});
export type LoggingPolicy = z.output<typeof LoggingPolicy>;

const ModelId = z
  .string({ error: "expected a model id string" })
  .min(1, { error: "must not be empty" })
  .max(LIMITS.modelIdMaxLength, { error: `must be at most ${LIMITS.modelIdMaxLength} characters` });

/**
 * Which models a key may call. `all` (the seed's mode) takes an empty `modelIds`;
 * `allowList` (this gateway's extension) takes 1 to 100 distinct model ids.
 */
export const ModelPolicy = z
  .strictObject({
    mode: z.enum(MODEL_POLICY_MODES, { error: 'expected "all" or "allowList"' }).default("all"),
    modelIds: z.array(ModelId, { error: "expected an array of model ids" }).max(LIMITS.modelIdsMax, {
      error: `must hold at most ${LIMITS.modelIdsMax} model ids`,
    }).default([]),
  })
  .superRefine((policy, ctx) => {
    if (policy.mode === "all" && policy.modelIds.length > 0) {
      ctx.addIssue({ code: "custom", path: ["modelIds"], message: 'must be empty when mode is "all"' });
    }
    if (policy.mode === "allowList" && policy.modelIds.length === 0) {
      ctx.addIssue({ code: "custom", path: ["modelIds"], message: 'must name at least one model when mode is "allowList"' });
    }
    if (new Set(policy.modelIds).size !== policy.modelIds.length) {
      ctx.addIssue({ code: "custom", path: ["modelIds"], message: "must not repeat a model id" });
    }
  });
export type ModelPolicy = z.output<typeof ModelPolicy>;

const positiveInt = (max: number, what: string) => {
  const message = `expected a whole number of ${what} from 1 to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(max, { error: message });
};

/**
 * How fast a key may call models, across every process of the gateway: requests and tokens per
 * minute (each a bucket that refills continuously and holds a minute's worth), and requests in
 * flight at once. Each limit is optional; at least one is set.
 */
export const RateLimitPolicy = z
  .strictObject({
    requestsPerMinute: positiveInt(LIMITS.requestsPerMinuteMax, "requests").optional(),
    tokensPerMinute: positiveInt(LIMITS.tokensPerMinuteMax, "tokens").optional(),
    maxConcurrentRequests: positiveInt(LIMITS.maxConcurrentRequestsMax, "requests").optional(),
  })
  .refine((policy) => Object.values(policy).some((limit) => limit !== undefined), {
    error: "expected at least one of requestsPerMinute, tokensPerMinute, maxConcurrentRequests (or null for no rate limit)",
  });
export type RateLimitPolicy = z.output<typeof RateLimitPolicy>;

const LABEL_KEY_MESSAGE = `expected label names of 1 to ${LIMITS.labelKeyMaxLength} characters: lowercase letters, digits, ".", "_", "-" or "/", starting with a letter or digit`;

/**
 * Labels of a key: up to 32 names, each mapped to a string of up to 256 characters (no control
 * characters), to find, group and bill keys by.
 */
export const Labels = z
  .record(
    z.string().regex(new RegExp(`^[a-z0-9][a-z0-9._/-]{0,${LIMITS.labelKeyMaxLength - 1}}$`), { error: LABEL_KEY_MESSAGE }),
    z
      .string({ error: "expected a string value" })
      .max(LIMITS.labelValueMaxLength, { error: `must be at most ${LIMITS.labelValueMaxLength} characters` })
      .regex(/^[^\p{Cc}]*$/u, { error: "must not contain control characters" }),
    { error: "expected an object of label names to string values" },
  )
  .refine((labels) => Object.keys(labels).length <= LIMITS.labelsMax, { error: `must hold at most ${LIMITS.labelsMax} labels` });
export type Labels = z.output<typeof Labels>;

/** An instant in the future of the key's life, normalised to UTC with milliseconds (`2027-01-01T00:00:00.000Z`). */
export const ExpiresAt = z
  .string({ error: "expected an ISO 8601 date and time with a zone, e.g. 2027-01-01T00:00:00Z" })
  .datetime({ offset: true, error: "expected an ISO 8601 date and time with a zone, e.g. 2027-01-01T00:00:00Z" })
  .transform((text) => new Date(text).toISOString());

/** Defaults applied when a create request leaves a policy out. */
export const DEFAULT_LOGGING_POLICY: LoggingPolicy = { storeRequest: false, storeResponse: false, retentionDays: 30 };
export const DEFAULT_MODEL_POLICY: ModelPolicy = { mode: "all", modelIds: [] };

/**
 * A key's policies as a writer declares them, the one definition shared by create, change and the
 * Pulumi provider. A missing or null `spendPolicy`, `rateLimitPolicy` or `expiresAt` means none;
 * the others take their defaults.
 */
export const KeyPolicies = z.strictObject({
  spendPolicy: SpendPolicy.nullable().optional(),
  loggingPolicy: LoggingPolicy.default(DEFAULT_LOGGING_POLICY),
  modelPolicy: ModelPolicy.default(DEFAULT_MODEL_POLICY),
  /** A missing or null `rateLimitPolicy` means no rate limit. */
  rateLimitPolicy: RateLimitPolicy.nullable().optional(),
  /** When the key stops authenticating (401 `key_expired`); missing or null: never. In the future when set. */
  expiresAt: ExpiresAt.nullable().optional(),
  labels: Labels.default({}),
  /** Fractions of the spend limit that send `key.budget_threshold`, once per window each; default none. */
  budgetAlertThresholds: BudgetAlertThresholds.default([]),
  /** Seconds before `expiresAt` that `key.expiring` is sent; missing or null: no warning. */
  expiryWarningSeconds: ExpiryWarningSeconds.nullable().optional(),
  /** Age of the secret at which `key.rotation_due` is sent; missing or null: never. */
  rotateAfterSeconds: RotateAfterSeconds.nullable().optional(),
});
export type KeyPolicies = z.input<typeof KeyPolicies>;
export type KeyPoliciesParams = z.output<typeof KeyPolicies>;

/**
 * {@link KeyPolicies} as a change names them: each optional and without defaults, since a PATCH
 * replaces only the policies it names. (zod's `.partial()` would keep the defaults and so reset
 * every policy the change left out.)
 */
export const KeyPolicyChanges = z.strictObject({
  spendPolicy: KeyPolicies.shape.spendPolicy,
  loggingPolicy: KeyPolicies.shape.loggingPolicy.removeDefault().optional(),
  modelPolicy: KeyPolicies.shape.modelPolicy.removeDefault().optional(),
  rateLimitPolicy: KeyPolicies.shape.rateLimitPolicy,
  expiresAt: KeyPolicies.shape.expiresAt,
  labels: KeyPolicies.shape.labels.removeDefault().optional(),
  budgetAlertThresholds: KeyPolicies.shape.budgetAlertThresholds.removeDefault().optional(),
  expiryWarningSeconds: KeyPolicies.shape.expiryWarningSeconds,
  rotateAfterSeconds: KeyPolicies.shape.rotateAfterSeconds,
});

/** The fields of {@link KeyPolicies} that null clears (and that a create may leave out or send as null alike). */
export const NULLABLE_POLICIES = ["spendPolicy", "rateLimitPolicy", "expiresAt", "expiryWarningSeconds", "rotateAfterSeconds"] as const satisfies readonly (keyof KeyPoliciesParams)[];
