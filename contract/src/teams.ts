import { z } from "zod";
import { KeyVersion, SpendPolicyRecord, SpendWindowState, TeamId, Timestamp } from "./api-key";
import { BudgetAlertThresholds } from "./key-alerts";
import { DEFAULT_MODEL_POLICY, KeyName, Labels, MODEL_POLICY_MODES, ModelPolicy, RateLimitPolicy, SpendPolicy } from "./policies";
import { looseEnum } from "./reading";

/** Bounds of teams (docs/api/teams.md records them). */
export const TEAM_LIMITS = {
  /** Keys a `team_not_empty` refusal names (the first of them by id). */
  keysNamedOnRefusal: 10,
} as const;

/**
 * A team as the account API returns it: limits shared by every key in it. Its spend policy caps
 * what its keys spend together, its rate limit how fast they call together, its model policy the
 * models any of them may call (a ceiling over each key's own). Read loosely, as keys are.
 */
export const Team = z.object({
  object: z.literal("team"),
  teamId: z.string(),
  ownerId: z.string(),
  name: z.string(),
  labels: z.record(z.string(), z.string()).default({}),
  spendPolicy: SpendPolicyRecord.nullable(),
  /** Requests and tokens per minute, requests in flight, of all its keys together; null: no rate limit. */
  rateLimitPolicy: z
    .object({
      requestsPerMinute: z.number().int().optional(),
      tokensPerMinute: z.number().int().optional(),
      maxConcurrentRequests: z.number().int().optional(),
    })
    .nullable()
    .default(null),
  modelPolicy: z.object({ mode: looseEnum(MODEL_POLICY_MODES), modelIds: z.array(z.string()) }),
  /** Fractions of each window's limit that send `team.budget_threshold` (ascending). */
  budgetAlertThresholds: z.array(z.number()).default([]),
  /** Optimistic concurrency as on keys: starts at 1, each change adds 1; send it back as `expectedVersion`. */
  version: z.number().int().min(1),
  /** Every window of the spend policy now: what its members spent in it while members. Empty without a policy. */
  spendWindows: z.array(SpendWindowState).default([]),
  /** Keys in the team now (revoked keys leave their team). */
  keyCount: z.number().int().default(0),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Team = z.infer<typeof Team>;

/** The policies of a team as a writer declares them; a missing or null spend or rate limit policy means none. */
export const TeamPolicies = z.strictObject({
  labels: Labels.default({}),
  spendPolicy: SpendPolicy.nullable().optional(),
  rateLimitPolicy: RateLimitPolicy.nullable().optional(),
  /** The ceiling: a key in the team calls only models this allows (and its own policy allows). */
  modelPolicy: ModelPolicy.default(DEFAULT_MODEL_POLICY),
  /** Fractions of each window's limit that send `team.budget_threshold`, once per window each; default none. */
  budgetAlertThresholds: BudgetAlertThresholds.default([]),
});

/** Body of `POST /v1/account/teams`. */
export const CreateTeamRequest = z.strictObject({ name: KeyName, ...TeamPolicies.shape });
export type CreateTeamRequest = z.input<typeof CreateTeamRequest>;
export type CreateTeamParams = z.output<typeof CreateTeamRequest>;

/** What a PATCH of a team may change, each replaced whole; null clears a spend or rate limit policy. */
export const TeamChanges = z.strictObject({
  name: KeyName.optional(),
  labels: TeamPolicies.shape.labels.removeDefault().optional(),
  spendPolicy: TeamPolicies.shape.spendPolicy,
  rateLimitPolicy: TeamPolicies.shape.rateLimitPolicy,
  modelPolicy: TeamPolicies.shape.modelPolicy.removeDefault().optional(),
  budgetAlertThresholds: TeamPolicies.shape.budgetAlertThresholds.removeDefault().optional(),
});
/** The fields a PATCH of a team may change: what a client compares to know whether a team needs a change. */
export const TEAM_CHANGE_FIELDS = Object.keys(TeamChanges.shape) as (keyof typeof TeamChanges.shape)[];
export type TeamChangeField = (typeof TEAM_CHANGE_FIELDS)[number];

/** Body of `PATCH /v1/account/teams/{teamId}`: `expectedVersion` plus at least one change. */
export const UpdateTeamRequest = z
  .strictObject({ expectedVersion: KeyVersion, ...TeamChanges.shape })
  .refine((body) => Object.keys(body).some((field) => field !== "expectedVersion"), {
    error: `expected at least one of ${TEAM_CHANGE_FIELDS.join(", ")}`,
  });
export type UpdateTeamRequest = z.input<typeof UpdateTeamRequest>;
export type UpdateTeamParams = z.output<typeof UpdateTeamRequest>;

/** Answer of `DELETE /v1/account/teams/{teamId}`. */
export const DeletedTeam = z.object({ object: z.literal("team"), teamId: z.string(), deleted: z.literal(true) });
export type DeletedTeam = z.infer<typeof DeletedTeam>;

/** The path parameter of `/v1/account/teams/{teamId}`. */
export const TeamPathParams = z.strictObject({ teamId: TeamId });
export type TeamPathParams = z.infer<typeof TeamPathParams>;

/** The team a `team.budget_threshold` event is about, as it was when the event was made. */
export const TeamSubject = z.object({
  teamId: z.string(),
  ownerId: z.string(),
  name: z.string(),
  labels: z.record(z.string(), z.string()),
});
