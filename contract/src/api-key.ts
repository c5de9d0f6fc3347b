import { z } from "zod";
import { CURRENCIES, KeyName, KeyPolicies, KeyPolicyChanges, MODEL_POLICY_MODES, RESET_PERIODS } from "./policies";
import { looseEnum, ReadUnits } from "./reading";

/** States a key can be in. PATCH moves between `active` and `disabled`; only revoke reaches `revoked`. */
export const KeyState = z.enum(["active", "disabled", "revoked"]);
export type KeyState = z.infer<typeof KeyState>;

/** States a PATCH may set. */
export const SettableKeyState = z.enum(["active", "disabled"], {
  error: 'expected "active" or "disabled" (a key is revoked only by the revoke endpoint)',
});
export type SettableKeyState = z.infer<typeof SettableKeyState>;

/** What a bad `expectedVersion` is told; one schema serves keys, teams and webhook endpoints, so it names none. */
const VERSION_MESSAGE = "expected the version you last read (the record's version), an integer >= 1";

/** The version callers send back as `expectedVersion` (of a key, a team, a webhook endpoint): an integer that starts at 1. */
export const KeyVersion = z.number({ error: VERSION_MESSAGE }).int({ error: VERSION_MESSAGE }).min(1, { error: VERSION_MESSAGE });

const KEY_ID_MESSAGE = "expected a key id such as key_0r4B9TXiCfin7DT82uB3";

/**
 * The id of a regular key, e.g. in the `{keyId}` path parameter. The gateway makes them `key_`
 * followed by 20 base62 characters; any 1 to 60 are accepted, so ids of another length still parse.
 */
export const KeyId = z.string({ error: KEY_ID_MESSAGE }).regex(/^key_[A-Za-z0-9]{1,60}$/, { error: KEY_ID_MESSAGE });
export type KeyId = z.infer<typeof KeyId>;

/** An ISO 8601 instant, as every timestamp on the wire. */
export const Timestamp = z.string().datetime({ offset: true });

/** Bounds of the extensions `client_reference` and `rotation_grace` (docs/api/limits.md#limits-and-bounds records them). */
export const KEY_EXTENSION_LIMITS = {
  clientReferenceMaxLength: 512,
  /** Seven days: long enough for any redeploy, short enough that a leaked old secret dies soon. */
  gracePeriodSecondsMax: 604_800,
} as const;

const CLIENT_REFERENCE_MESSAGE =
  `expected 1 to ${KEY_EXTENSION_LIMITS.clientReferenceMaxLength} visible ASCII characters or spaces, e.g. urn:pulumi:prod::billing::gateway:ApiKey::ci`;

/**
 * Extension `client_reference`: a caller's own name for a key, stored on it and unique among the
 * owner's keys that are not revoked. A creator that may crash derives it from something stable
 * (a Pulumi URN, a deployment id), so a second create for the same thing finds the first key.
 */
export const ClientReference = z
  .string({ error: CLIENT_REFERENCE_MESSAGE })
  .regex(new RegExp(`^[\\x20-\\x7e]{1,${KEY_EXTENSION_LIMITS.clientReferenceMaxLength}}$`), { error: CLIENT_REFERENCE_MESSAGE });
export type ClientReference = z.infer<typeof ClientReference>;

const GRACE_MESSAGE = `expected whole seconds from 0 to ${KEY_EXTENSION_LIMITS.gracePeriodSecondsMax} (7 days)`;

/** Extension `rotation_grace`: how long the replaced secret keeps working after a rotation, in seconds. */
export const GracePeriodSeconds = z
  .number({ error: GRACE_MESSAGE })
  .int({ error: GRACE_MESSAGE })
  .min(0, { error: GRACE_MESSAGE })
  .max(KEY_EXTENSION_LIMITS.gracePeriodSecondsMax, { error: GRACE_MESSAGE });

/** Bounds of extension `secret_use` (docs/api/keys.md#which-secret-is-in-use-extension-secret_use records them). */
export const SECRET_USE_LIMITS = {
  /** Distinct clients kept per secret: the most recently seen. */
  clientsPerSecret: 20,
  /** Characters of a client's `User-Agent` kept. */
  userAgentMaxLength: 200,
  /** The shortest `retireWhenIdleSeconds`: a few seconds, so a test or a quick cut-over can use it. */
  retireWhenIdleSecondsMin: 5,
} as const;

/**
 * Extension `secret_use`: one client seen presenting a secret, told apart by its `User-Agent` and
 * source address (the address as the gateway's trusted proxy reports it; docs/api/keys.md#which-secret-is-in-use-extension-secret_use says which).
 */
export const SecretClient = z.object({
  /** The `User-Agent` it sent (cut to {@link SECRET_USE_LIMITS.userAgentMaxLength}), or null when it sent none. */
  userAgent: z.string().nullable(),
  /** Its source address, or null when unknown. */
  address: z.string().nullable(),
  firstSeenAt: Timestamp,
  lastSeenAt: Timestamp,
  /** Requests this client made with the secret since the secret was issued (or since the rotation, for a previous one). */
  requests: z.number().int(),
});
export type SecretClient = z.infer<typeof SecretClient>;

/** Extension `secret_use`: how one of a key's secrets has been used. */
export const SecretUse = z.object({
  /** Prefix and last four characters of the secret. */
  hint: z.string(),
  /** When a request last authenticated with it, or null before the first. */
  lastUsedAt: Timestamp.nullable(),
  /** Requests it authenticated since the key's last rotation (since the key's creation before any). */
  requestsSinceRotation: z.number().int(),
  /** The most recently seen distinct clients, most recent first. */
  clients: z.array(SecretClient).default([]),
});
export type SecretUse = z.infer<typeof SecretUse>;

/** Why a previous secret stopped authenticating. */
export const PREVIOUS_SECRET_RETIRE_REASONS = ["idle", "expired", "revoked", "rotated"] as const;

/** Extension `secret_use`: the secret the last rotation replaced, its grace and its use since. */
export const PreviousSecretUse = SecretUse.extend({
  /** The end of its grace: it never authenticates at or after this instant. */
  expiresAt: Timestamp,
  /** It stops as soon as it has gone unused this long (rotate's `retireWhenIdleSeconds`), or null. */
  retireWhenIdleSeconds: z.number().int().nullable().default(null),
  /** When `key.previous_secret_in_use` is due if it is still in use then. */
  inUseWarningAt: Timestamp.nullable().default(null),
  /** When it stopped authenticating (idle, grace over, revoked, or replaced by a newer rotation), or null while it still does. */
  retiredAt: Timestamp.nullable().default(null),
  retiredReason: looseEnum(PREVIOUS_SECRET_RETIRE_REASONS).nullable().default(null),
});
export type PreviousSecretUse = z.infer<typeof PreviousSecretUse>;

// The rule lives in a module without zod, so the console bundles it without the schemas.

const TEAM_ID_MESSAGE = "expected a team id such as team_0r4B9TXiCfin7DT82uB3";
/** The id of a team: `team_` and 20 base62 characters (1 to 60 accepted). */
export const TeamId = z.string({ error: TEAM_ID_MESSAGE }).regex(/^team_[A-Za-z0-9]{1,60}$/, { error: TEAM_ID_MESSAGE });
export type TeamId = z.infer<typeof TeamId>;

/** One window of a spend policy as a gateway returns it. */
const SpendWindowLimitRecord = z.object({ limitUnits: ReadUnits, resetPeriod: looseEnum(RESET_PERIODS).default("never") });

/**
 * A spend policy (of a key or a team) as a gateway returns it, read loosely: the windows form
 * `{ currency, windows }` or the single-window form `{ limitUnits, currency, resetPeriod }`.
 * `spendWindowsOf` lists the windows of either.
 */
export const SpendPolicyRecord = z.union([
  z.object({ currency: looseEnum(CURRENCIES), windows: z.array(SpendWindowLimitRecord) }),
  z.object({ limitUnits: ReadUnits, currency: looseEnum(CURRENCIES), resetPeriod: looseEnum(RESET_PERIODS).default("never") }),
]);
export type SpendPolicyRecord = z.infer<typeof SpendPolicyRecord>;

/** One window of a spend policy now: its limit and period, what it spent, and when it began and starts again. */
export const SpendWindowState = z.object({
  limitUnits: ReadUnits,
  resetPeriod: looseEnum(RESET_PERIODS),
  spentUnits: ReadUnits,
  startedAt: Timestamp,
  /** When the window starts again (and its spend is counted from zero); null for a lifetime cap. */
  resetsAt: Timestamp.nullable(),
});
export type SpendWindowState = z.infer<typeof SpendWindowState>;

/**
 * A regular API key as the account API returns it. Unknown extra fields are stripped, and an enum
 * value a newer gateway adds reads as `Unrecognized`, so a client keeps working; amounts of credits
 * read in their canonical spelling.
 */
export const ApiKey = z.object({
  object: z.literal("api_key"),
  keyId: z.string(),
  ownerId: z.string(),
  name: z.string(),
  state: KeyState,
  version: z.number().int().min(1),
  /** Prefix and last four characters of the current secret; the secret itself is never returned again. */
  hint: z.string(),
  // Read loosely: what a gateway returns is what the key is, even outside today's input bounds.
  spendPolicy: SpendPolicyRecord.nullable(),
  loggingPolicy: z.object({ storeRequest: z.boolean(), storeResponse: z.boolean(), retentionDays: z.number().int() }),
  modelPolicy: z.object({ mode: looseEnum(MODEL_POLICY_MODES), modelIds: z.array(z.string()) }),
  /** Requests and tokens per minute, requests in flight; null: no rate limit. */
  rateLimitPolicy: z
    .object({
      requestsPerMinute: z.number().int().optional(),
      tokensPerMinute: z.number().int().optional(),
      maxConcurrentRequests: z.number().int().optional(),
    })
    .nullable()
    .default(null),
  /** When the key stops authenticating; null: never. */
  expiresAt: Timestamp.nullable().default(null),
  /** Whether `expiresAt` has passed: the key is refused with 401 `key_expired` until a PATCH extends it. */
  expired: z.boolean().default(false),
  labels: z.record(z.string(), z.string()).default({}),
  /** When the key's last model request arrived (of any outcome), or null before its first. */
  lastUsedAt: Timestamp.nullable().default(null),
  /** Credits spent so far, over the key's whole life, as a decimal string. */
  spentUnits: ReadUnits,
  /**
   * The spend window the limit applies to now: for a reset period, the current calendar window and
   * what it spent; for a lifetime cap (or none), the key's whole life (`resetsAt` null).
   */
  spendWindow: z
    .object({ startedAt: Timestamp, resetsAt: Timestamp.nullable(), spentUnits: ReadUnits })
    .nullable()
    .default(null),
  /**
   * Every window of the spend policy now, in the policy's order (empty without a policy): what each
   * allows, what it spent and when it starts again. `spendWindow` above is the first of them.
   */
  spendWindows: z.array(SpendWindowState).default([]),
  /** The team the key belongs to, whose spend, rate and model limits it shares; null for none. */
  teamId: z.string().nullable().default(null),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  rotatedAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
  /**
   * Extension `client_reference`: the reference the key was created with, or null. A gateway
   * without the extension sends nothing, read as null.
   */
  clientReference: z.string().nullable().default(null),
  /**
   * Extension `rotation_grace`: until when the secret replaced by the last rotation keeps
   * authenticating (it may be in the past), or null when that rotation had no grace period. A
   * gateway without the extension sends nothing, read as null.
   */
  previousSecretExpiresAt: Timestamp.nullable().default(null),
  /**
   * Extension `secret_use`: how the current secret has been used. A gateway without the extension
   * sends nothing, read as null.
   */
  currentSecret: SecretUse.nullable().default(null),
  /**
   * Extension `secret_use`: the secret the last rotation replaced, when that rotation had a grace
   * period: its hint, grace, use and clients; null otherwise (and from a gateway without the extension).
   */
  previousSecret: PreviousSecretUse.nullable().default(null),
  /** Fractions of the spend limit that send `key.budget_threshold` (ascending); a gateway without webhooks sends nothing, read as []. */
  budgetAlertThresholds: z.array(z.number()).default([]),
  /** Seconds before `expiresAt` that `key.expiring` is sent, or null. */
  expiryWarningSeconds: z.number().int().nullable().default(null),
  /** Age of the secret (seconds since `createdAt` or `rotatedAt`) at which `key.rotation_due` is sent, or null. */
  rotateAfterSeconds: z.number().int().nullable().default(null),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** The answer to create and rotate: the key record plus its new secret, shown this once. */
export const ApiKeyWithSecret = ApiKey.extend({ secret: z.string() });
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>;

/** Body of `POST /v1/account/api-keys`. Policies left out take their defaults; a missing or null `spendPolicy` means no cap. */
export const CreateApiKeyRequest = z.strictObject({
  name: KeyName,
  /** Extension: a key may be created `disabled`, so declaring one never takes two requests. */
  state: SettableKeyState.default("active"),
  ...KeyPolicies.shape,
  /** Extension `client_reference`: see {@link ClientReference}. */
  clientReference: ClientReference.optional(),
  /** The owner's team the key joins; missing or null: none. */
  teamId: TeamId.nullable().optional(),
});
export type CreateApiKeyRequest = z.input<typeof CreateApiKeyRequest>;
export type CreateApiKeyParams = z.output<typeof CreateApiKeyRequest>;

/** What a PATCH may change: a key's name, its state and each of its policies (each replaced whole). */
export const KeyChanges = z.strictObject({
  name: KeyName.optional(),
  state: SettableKeyState.optional(),
  ...KeyPolicyChanges.shape,
  /** Moves the key to another of the owner's teams; null takes it out of its team. */
  teamId: TeamId.nullable().optional(),
});

/**
 * The fields a PATCH may change, derived from {@link KeyChanges}: what a client compares to know
 * whether a key needs a change (the Pulumi provider's diff does), so a new policy is added once.
 */
export const KEY_CHANGE_FIELDS = Object.keys(KeyChanges.shape) as (keyof typeof KeyChanges.shape)[];
export type KeyChangeField = (typeof KEY_CHANGE_FIELDS)[number];

/** Body of `PATCH /v1/account/api-keys/{keyId}`: `expectedVersion` plus at least one change. Policies are replaced whole. */
export const UpdateApiKeyRequest = z
  .strictObject({ expectedVersion: KeyVersion, ...KeyChanges.shape })
  .refine((body) => Object.keys(body).some((field) => field !== "expectedVersion"), {
    error: `expected at least one of ${KEY_CHANGE_FIELDS.join(", ")}`,
  });
export type UpdateApiKeyRequest = z.input<typeof UpdateApiKeyRequest>;
export type UpdateApiKeyParams = z.output<typeof UpdateApiKeyRequest>;

/** Body of rotate and revoke: the version the caller last saw. */
export const VersionedRequest = z.strictObject({ expectedVersion: KeyVersion });
export type VersionedRequest = z.infer<typeof VersionedRequest>;

const RETIRE_MESSAGE = `expected whole seconds from ${SECRET_USE_LIMITS.retireWhenIdleSecondsMin} to ${KEY_EXTENSION_LIMITS.gracePeriodSecondsMax} (7 days)`;

/** Extension `secret_use`: the previous secret stops once it has gone unused this many seconds. */
export const RetireWhenIdleSeconds = z
  .number({ error: RETIRE_MESSAGE })
  .int({ error: RETIRE_MESSAGE })
  .min(SECRET_USE_LIMITS.retireWhenIdleSecondsMin, { error: RETIRE_MESSAGE })
  .max(KEY_EXTENSION_LIMITS.gracePeriodSecondsMax, { error: RETIRE_MESSAGE });

const WARNING_MESSAGE = `expected whole seconds from 1 to ${KEY_EXTENSION_LIMITS.gracePeriodSecondsMax} (7 days)`;

/** Extension `secret_use`: how long before the grace ends `key.previous_secret_in_use` is sent. */
export const InUseWarningSeconds = z
  .number({ error: WARNING_MESSAGE })
  .int({ error: WARNING_MESSAGE })
  .min(1, { error: WARNING_MESSAGE })
  .max(KEY_EXTENSION_LIMITS.gracePeriodSecondsMax, { error: WARNING_MESSAGE });

/** What a rotation asks of the secret it replaces: its grace, and (extension `secret_use`) when to retire it early and when to warn. */
export interface RotationTerms {
  gracePeriodSeconds?: number | undefined;
  retireWhenIdleSeconds?: number | undefined;
  inUseWarningSeconds?: number | undefined;
}

/**
 * The rules the terms of a rotation follow together: `retireWhenIdleSeconds` and
 * `inUseWarningSeconds` need a grace period, and the warning must fall inside it. One rule for the
 * rotate of one key and the bulk rotation.
 */
export function checkRotationTerms(body: RotationTerms, ctx: z.RefinementCtx): void {
  const grace = body.gracePeriodSeconds ?? 0;
  for (const field of ["retireWhenIdleSeconds", "inUseWarningSeconds"] as const) {
    if (body[field] !== undefined && grace === 0) {
      ctx.addIssue({ code: "custom", path: [field], message: "needs gracePeriodSeconds > 0: without a grace the previous secret stops at once" });
    }
  }
  if (body.inUseWarningSeconds !== undefined && grace > 0 && body.inUseWarningSeconds >= grace) {
    ctx.addIssue({ code: "custom", path: ["inUseWarningSeconds"], message: `must be less than gracePeriodSeconds (${grace})` });
  }
}

/** The fields of {@link RotationTerms}, as a rotate body (one key's, or a bulk rotation's) takes them. */
export const RotationTermsFields = {
  gracePeriodSeconds: GracePeriodSeconds.optional(),
  retireWhenIdleSeconds: RetireWhenIdleSeconds.optional(),
  inUseWarningSeconds: InUseWarningSeconds.optional(),
};

/**
 * Body of rotate: the version the caller last saw and, extension `rotation_grace`, how many seconds
 * the replaced secret keeps working (default 0: it stops at once, as the seed says). Extension
 * `secret_use`: with a grace, `retireWhenIdleSeconds` ends it early once nobody uses it, and
 * `inUseWarningSeconds` says when to warn that it is still in use (default: a quarter of the grace
 * before its end). Both need a grace period; the warning must fall inside it.
 */
export const RotateApiKeyRequest = z.strictObject({ expectedVersion: KeyVersion, ...RotationTermsFields }).superRefine(checkRotationTerms);
export type RotateApiKeyRequest = z.infer<typeof RotateApiKeyRequest>;
