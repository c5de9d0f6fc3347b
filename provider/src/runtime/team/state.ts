import { canonicalJson, Team, type CreateTeamRequest, type UpdateTeamRequest } from "@gateway-keys/contract";
import { credentialHint, type Connection } from "../connection";
import {
  TEAM_CARRIED_INPUTS,
  TEAM_PATCHABLE_FIELDS,
  TEAM_RECORD_FIELDS,
  type DesiredTeam,
  type StoredTeam,
  type TeamPatchableField,
} from "./shapes";

type CarriedTeamInputs = Partial<Pick<DesiredTeam, (typeof TEAM_CARRIED_INPUTS)[number]>>;

/** A patchable field as the contract reads a team record: a policy the state leaves out reads as the record's null. */
export function storedTeamValue(stored: StoredTeam, field: TeamPatchableField): unknown {
  const value = (stored as Record<string, unknown>)[field];
  const read = Team.shape[field].safeParse(value === undefined ? null : value);
  return read.success ? read.data : value;
}

/** A declared value as the record holds it: a policy declared as none is null. */
const declaredValue = (desired: DesiredTeam, field: TeamPatchableField): unknown => desired[field] ?? null;

/** The patchable fields whose declared value differs from the stored one. */
export function changedTeamFields(stored: StoredTeam, desired: DesiredTeam): TeamPatchableField[] {
  return TEAM_PATCHABLE_FIELDS.filter((field) => canonicalJson(storedTeamValue(stored, field)) !== canonicalJson(declaredValue(desired, field)));
}

/** The create request of a declared team: each field it sets (a policy declared as none left out). */
export function teamCreateRequest(desired: DesiredTeam): CreateTeamRequest {
  const body: Record<string, unknown> = {};
  for (const field of TEAM_PATCHABLE_FIELDS) if (desired[field] !== undefined && desired[field] !== null) body[field] = desired[field];
  return body as CreateTeamRequest;
}

/** The PATCH that brings a team at `version` to `desired` in `fields` (a policy declared as none sent as null, which clears it). */
export function teamChangeRequest(version: number, fields: readonly TeamPatchableField[], desired: DesiredTeam): UpdateTeamRequest {
  const body: Record<string, unknown> = { expectedVersion: version };
  for (const field of fields) body[field] = declaredValue(desired, field);
  return body as UpdateTeamRequest;
}

/** The outputs stored for a team: the gateway's record (nulls left out), where it lives, and the inputs it carries. */
export function teamState(record: Team, connection: Connection, carried: CarriedTeamInputs): StoredTeam {
  const kept: Record<string, unknown> = { baseUrl: connection.baseUrl, provisioningKeyHint: credentialHint(connection) };
  for (const field of TEAM_RECORD_FIELDS) if (record[field] !== null && record[field] !== undefined) kept[field] = record[field];
  for (const field of TEAM_CARRIED_INPUTS) if (carried[field] !== undefined) kept[field] = carried[field];
  return kept as StoredTeam;
}

/** The inputs a stored team carries. */
export function carriedTeamInputs(state: StoredTeam): CarriedTeamInputs {
  const carried: Record<string, unknown> = {};
  for (const field of TEAM_CARRIED_INPUTS) if (state[field] !== undefined) carried[field] = state[field];
  return carried;
}

/** The inputs a live team implies (what refresh and import report), so a change made outside Pulumi shows in the next preview. */
export function teamInputsOf(state: StoredTeam): Record<string, unknown> {
  const inputs: Record<string, unknown> = { ...carriedTeamInputs(state) };
  for (const field of TEAM_PATCHABLE_FIELDS) {
    const value = storedTeamValue(state, field);
    if (value !== null) inputs[field] = value;
  }
  return inputs;
}
