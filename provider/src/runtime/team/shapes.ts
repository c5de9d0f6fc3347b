import { CreateTeamRequest, Team, TEAM_CHANGE_FIELDS, TeamId } from "@gateway-keys/contract";
import { z } from "zod";
import { ConnectionInput } from "../connection";

/** The properties of a team kept encrypted in a stack's state, by either front door: its `connection` (which may hold a provisioning key). */
export const TEAM_SECRET_PROPERTIES = ["connection"] as const;

/** The fields a PATCH of a team changes: the contract's list (every declared field: nothing about a team needs replacing). */
export const TEAM_PATCHABLE_FIELDS = TEAM_CHANGE_FIELDS;
export type TeamPatchableField = (typeof TEAM_PATCHABLE_FIELDS)[number];

/**
 * The inputs of a Team: the contract's create request (name, labels, policies, thresholds, their
 * defaults and bounds) plus the provider's own fields. Top-level properties it does not name, such
 * as the engine's `__provider`, are dropped; inside, the contract's schemas stay strict.
 */
export const TeamInputs = z.object({
  ...CreateTeamRequest.shape,
  connection: ConnectionInput.optional(),
  /** An existing team to take over instead of creating one (the dynamic resource's `import`). */
  adoptTeamId: TeamId.optional(),
  /** Hidden, set by the Team class (the native plugin gets it from the engine): the resource's URN, which names the create. */
  clientReference: z.string().optional(),
});

/** A team's inputs after `check`: what the program declares, defaults filled, amounts canonical. */
export type DesiredTeam = z.output<typeof TeamInputs>;

/** The policies a team may have none of: kept in the state only when set (the engine's state holds no null). */
export const TEAM_NULLABLE_FIELDS = ["spendPolicy", "rateLimitPolicy"] as const satisfies readonly (keyof Team)[];
type TeamNullableField = (typeof TEAM_NULLABLE_FIELDS)[number];

/** The fields of the gateway's record the stack keeps: all but `object` (the spend windows and key count as read-only outputs). */
export const TEAM_RECORD_FIELDS = (Object.keys(Team.shape) as (keyof Team)[]).filter(
  (field): field is Exclude<keyof Team, "object"> => field !== "object",
);

/** The inputs the stack carries beside the team's record: recorded as they are declared. */
export const TEAM_CARRIED_INPUTS = ["clientReference", "connection", "adoptTeamId"] as const;

/** A team's outputs, as stored in the stack's state. */
export type StoredTeam = Omit<Team, "object" | TeamNullableField> & { [Field in TeamNullableField]?: NonNullable<Team[Field]> } &
  Pick<DesiredTeam, (typeof TEAM_CARRIED_INPUTS)[number]> & {
    /** The gateway the team lives on. */
    baseUrl: string;
    /** Hint of the provisioning key the team was last managed with. */
    provisioningKeyHint: string;
  };
