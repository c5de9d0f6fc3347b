import * as pulumi from "@pulumi/pulumi";
import type { GatewayConnectionArgs, ModelPolicyArgs, RateLimitPolicyArgs, SpendPolicyArgs, TeamArgs } from "./inputs";

/** The outputs both Team classes declare besides those that are also inputs. */
const OUTPUT_NAMES = ["teamId", "ownerId", "version", "spendWindows", "keyCount", "createdAt", "updatedAt", "baseUrl", "provisioningKeyHint"] as const;

/** The inputs both classes send for `args`: the program's, the connection as a secret, and each output left undefined (as every Pulumi SDK does). */
export function teamInputs(args: TeamArgs): Record<string, unknown> {
  const inputs: Record<string, unknown> = {
    labels: args.labels,
    spendPolicy: args.spendPolicy,
    rateLimitPolicy: args.rateLimitPolicy,
    modelPolicy: args.modelPolicy,
    budgetAlertThresholds: args.budgetAlertThresholds,
    connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
  };
  for (const output of OUTPUT_NAMES) inputs[output] = undefined;
  return inputs;
}

/** One spend window of a team as last read: its limit, what the team spent in it, and when it started and resets. */
export interface SpendWindowOutput {
  limitUnits: string;
  resetPeriod: string;
  spentUnits: string;
  startedAt: string;
  /** When the window resets (ISO 8601); absent for a lifetime cap. */
  resetsAt?: string | null;
}

/**
 * What every Team resource exposes, whichever front door manages it — the dynamic provider
 * ({@link import("./team").Team}) or the native plugin ({@link import("./native/resource").Team}).
 */
export abstract class TeamResource extends pulumi.CustomResource {
  /** The team's id on the gateway (`team_...`); also the resource id. Give it to a key as `teamId`. */
  declare readonly teamId: pulumi.Output<string>;
  /** The team's name. */
  declare readonly name: pulumi.Output<string>;
  /** The team's labels. */
  declare readonly labels: pulumi.Output<Record<string, string>>;
  /** The team's spending cap, one window or several; undefined when it has none. */
  declare readonly spendPolicy: pulumi.Output<SpendPolicyArgs | undefined>;
  /** The team's rate limits; undefined when it has none. */
  declare readonly rateLimitPolicy: pulumi.Output<RateLimitPolicyArgs | undefined>;
  /** The models its keys may call at most. */
  declare readonly modelPolicy: pulumi.Output<ModelPolicyArgs>;
  /** Fractions of each window's limit that send `team.budget_threshold`. */
  declare readonly budgetAlertThresholds: pulumi.Output<number[]>;
  /** The owner the team belongs to (fixed by the provisioning key). */
  declare readonly ownerId: pulumi.Output<string>;
  /** The team's version; goes up on every change. */
  declare readonly version: pulumi.Output<number>;
  /** Each spend window with what the team spent in it, as of the last create, update or refresh (read-only). */
  declare readonly spendWindows: pulumi.Output<SpendWindowOutput[]>;
  /** How many keys belong to the team, as of the last create, update or refresh (read-only). */
  declare readonly keyCount: pulumi.Output<number>;
  /** The gateway the team lives on. */
  declare readonly baseUrl: pulumi.Output<string>;
  /** Hint of the provisioning key the team was last managed with. */
  declare readonly provisioningKeyHint: pulumi.Output<string>;
  /** The team's own `connection` input, if any: a Pulumi secret. */
  declare readonly connection: pulumi.Output<GatewayConnectionArgs | undefined>;
  /** When the team was created (ISO 8601). */
  declare readonly createdAt: pulumi.Output<string>;
  /** When the team last changed (ISO 8601). */
  declare readonly updatedAt: pulumi.Output<string>;
}
