import { z } from "zod";
import { DECIMAL_UNITS_PATTERN, formatUnits, parseUnits } from "./units";

/** Bounds the contract puts on key fields (the seed leaves them open; docs/api.md records them). */
export const LIMITS = {
  nameMaxLength: 128,
  retentionDaysMin: 1,
  retentionDaysMax: 365,
  modelIdsMax: 100,
  modelIdMaxLength: 128,
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

/** Spending cap of a key, in credits. */
export const SpendPolicy = z.strictObject({
  limitUnits: LimitUnits,
  currency: z.enum(CURRENCIES, { error: 'expected "unit" (the gateway\'s credit unit)' }).default("unit"),
});
export type SpendPolicy = z.output<typeof SpendPolicy>;

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

/** Defaults applied when a create request leaves a policy out. */
export const DEFAULT_LOGGING_POLICY: LoggingPolicy = { storeRequest: false, storeResponse: false, retentionDays: 30 };
export const DEFAULT_MODEL_POLICY: ModelPolicy = { mode: "all", modelIds: [] };

/**
 * A key's policies as a writer declares them, the one definition shared by create, change and the
 * Pulumi provider. A missing or null `spendPolicy` means no cap; the other two take their defaults.
 */
export const KeyPolicies = z.strictObject({
  spendPolicy: SpendPolicy.nullable().optional(),
  loggingPolicy: LoggingPolicy.default(DEFAULT_LOGGING_POLICY),
  modelPolicy: ModelPolicy.default(DEFAULT_MODEL_POLICY),
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
});
