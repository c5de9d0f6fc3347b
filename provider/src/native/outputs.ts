import { ApiKey as ApiKeyRecord, NULLABLE_POLICIES, Team as TeamRecord, Webhook as WebhookRecord } from "@gateway-keys/contract";
import { z } from "zod";
import { ApiKeyInputs, CARRIED_INPUTS, RECORD_FIELDS, type StoredKey } from "../runtime/shapes";
import { TEAM_CARRIED_INPUTS, TeamInputs, type StoredTeam } from "../runtime/team/shapes";
import { WEBHOOK_CARRIED_INPUTS, WebhookInputs } from "../runtime/webhook/shapes";

type NullablePolicy = (typeof NULLABLE_POLICIES)[number];
type KeptField = Exclude<(typeof RECORD_FIELDS)[number], NullablePolicy>;
type CarriedInput = (typeof CARRIED_INPUTS)[number];

/** A `pick` mask of every name in `fields`. */
function maskOf<Field extends string>(fields: readonly Field[]): { [Name in Field]: true } {
  return Object.fromEntries(fields.map((field) => [field, true])) as { [Name in Field]: true };
}

const nullable = new Set<string>(NULLABLE_POLICIES);

/**
 * The outputs of `gatewaykeys:index:ApiKey` as a zod schema, for the package schema only: the
 * contract's key record (the fields the runtime keeps, {@link RECORD_FIELDS}; a policy the key may
 * lack is optional rather than null, as the runtime stores it), the provider's own fields, and the
 * inputs the stack carries. Derived from the contract, so a new record field needs no edit here.
 */
export const ApiKeyOutputs = z.object({
  ...ApiKeyRecord.pick(maskOf(RECORD_FIELDS.filter((field): field is KeptField => !nullable.has(field)))).shape,
  ...({
    spendPolicy: ApiKeyRecord.shape.spendPolicy.unwrap().optional(),
    rateLimitPolicy: ApiKeyRecord.shape.rateLimitPolicy.unwrap().unwrap().optional(),
    expiresAt: ApiKeyRecord.shape.expiresAt.unwrap().unwrap().optional(),
    expiryWarningSeconds: ApiKeyRecord.shape.expiryWarningSeconds.unwrap().unwrap().optional(),
    rotateAfterSeconds: ApiKeyRecord.shape.rotateAfterSeconds.unwrap().unwrap().optional(),
  } satisfies Record<NullablePolicy, z.ZodType>),
  secret: z.string().optional(),
  secretKnown: z.boolean(),
  baseUrl: z.string(),
  provisioningKeyHint: z.string(),
  ...ApiKeyInputs.pick(maskOf<CarriedInput>(CARRIED_INPUTS)).shape,
});

/** Compile-time proof that the schema describes exactly what the runtime stores: every field, with its type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const outputsAreStoredKeys: Same<z.output<typeof ApiKeyOutputs>, StoredKey> = true;
void outputsAreStoredKeys;

/**
 * The outputs of `gatewaykeys:index:Webhook` as a zod schema, for the package schema only: the
 * contract's endpoint record (but `object`), the provider's own fields, and the inputs the stack carries.
 */
export const WebhookOutputs = z.object({
  ...WebhookRecord.omit({ object: true, previousSecretExpiresAt: true }).shape,
  previousSecretExpiresAt: WebhookRecord.shape.previousSecretExpiresAt.unwrap().unwrap().optional(),
  signingSecret: z.string().optional(),
  signingSecretKnown: z.boolean(),
  baseUrl: z.string(),
  provisioningKeyHint: z.string(),
  ...WebhookInputs.pick(maskOf(WEBHOOK_CARRIED_INPUTS.filter((field) => field !== "adoptWebhookId"))).shape,
});

/**
 * The outputs of `gatewaykeys:index:Team` as a zod schema, for the package schema only: the
 * contract's team record (but `object`; a policy the team may lack optional rather than null, as
 * the runtime stores it), the provider's own fields, and the inputs the stack carries.
 */
export const TeamOutputs = z.object({
  ...TeamRecord.omit({ object: true, spendPolicy: true, rateLimitPolicy: true }).shape,
  spendPolicy: TeamRecord.shape.spendPolicy.unwrap().optional(),
  rateLimitPolicy: TeamRecord.shape.rateLimitPolicy.unwrap().unwrap().optional(),
  baseUrl: z.string(),
  provisioningKeyHint: z.string(),
  ...TeamInputs.pick(maskOf(TEAM_CARRIED_INPUTS.filter((field) => field !== "adoptTeamId"))).shape,
});

const teamOutputsAreStoredTeams: Same<Omit<z.output<typeof TeamOutputs>, "adoptTeamId">, Omit<StoredTeam, "adoptTeamId">> = true;
void teamOutputsAreStoredTeams;
