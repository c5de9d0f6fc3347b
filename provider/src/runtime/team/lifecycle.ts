import type * as pulumi from "@pulumi/pulumi";
import type { Team } from "@gateway-keys/contract";
import { callOptions, credentialHint, type Connection } from "../connection";
import type { ProviderContext } from "../context";
import { KeyOperationError } from "../errors";
import { derivedIdempotencyKey } from "../idempotency";
import { requireOwnerOf } from "../owner";
import { describeCreateFailure } from "../messages";
import { describeTeamFailure, isTeamGone } from "./messages";
import type { DesiredTeam, StoredTeam } from "./shapes";
import { carriedTeamInputs, changedTeamFields, teamChangeRequest, teamCreateRequest, teamInputsOf, teamState } from "./state";

/** Links of the replay chain followed (one per destroy-then-create of the same resource within the gateway's idempotency lifetime). */
const MAX_REPLAY_LINKS = 20;

const teamsOf = (context: ProviderContext, connection: Connection) => context.connections.client(connection).teams;

/** How messages name a team not made yet: its resource's name, else its declared name. */
function teamName(desired: DesiredTeam): string {
  return desired.clientReference === undefined ? desired.name : desired.clientReference.split("::").pop()!;
}

/**
 * Creates the team, or takes over the one the program adopts. A create carries an Idempotency-Key
 * derived from the resource's URN and the body, so the run after a crash gets the answer the dead
 * run never recorded instead of making a second team. A replayed team that was deleted since
 * belongs to a destroyed resource: the next key is derived from its id, and a new team is made.
 */
export async function createTeam(context: ProviderContext, desired: DesiredTeam): Promise<pulumi.dynamic.CreateResult<StoredTeam>> {
  const connection = context.connections.require(desired.connection);
  if (desired.adoptTeamId) return adoptTeam(context, desired.adoptTeamId, desired, connection);
  const teams = teamsOf(context, connection);
  const body = teamCreateRequest(desired);
  let after: string | null = null;
  for (let link = 0; link < MAX_REPLAY_LINKS; link++) {
    // Without a URN (a direct call) nothing names the resource across runs: the SDK's own key per call.
    const derived: { idempotencyKey?: string } =
      desired.clientReference === undefined ? {} : { idempotencyKey: derivedIdempotencyKey("create", { team: desired.clientReference, body, after }) };
    let answer: { data: Team; response: { replayed: boolean } };
    try {
      answer = await teams.create(body, { ...callOptions(connection), ...derived }).withResponse();
    } catch (error) {
      throw describeCreateFailure(teamName(desired), error, connection, "team");
    }
    if (!answer.response.replayed) return { id: answer.data.teamId, outs: teamState(answer.data, connection, desired) };
    // The answer of a create an earlier run made and never recorded: good while the team lives (read as it is now).
    try {
      const live = await teams.get(answer.data.teamId, callOptions(connection));
      return { id: live.teamId, outs: teamState(live, connection, desired) };
    } catch (error) {
      if (!isTeamGone(error)) throw describeTeamFailure(answer.data.teamId, "read", error, answer.data.version, connection);
      after = answer.data.teamId;
    }
  }
  throw new KeyOperationError(`could not create team "${teamName(desired)}": the gateway kept answering with teams deleted since; run \`pulumi up\` again.`);
}

/** Takes over an existing team (the dynamic Team's `import`): one read, no change; it must already be what the program declares. */
async function adoptTeam(context: ProviderContext, teamId: string, desired: DesiredTeam, connection: Connection): Promise<pulumi.dynamic.CreateResult<StoredTeam>> {
  let record: Team;
  try {
    record = await teamsOf(context, connection).get(teamId, callOptions(connection));
  } catch (error) {
    throw describeTeamFailure(teamId, "adopt", error, 0, connection);
  }
  const state = teamState(record, connection, desired);
  const differences = changedTeamFields(state, desired);
  if (differences.length > 0) {
    throw new KeyOperationError(
      `cannot adopt team ${teamId}: it differs from the program in ${differences.join(", ")}. ` +
        "Make the program match the team, adopt it, then change it in a later update. Nothing was changed.",
    );
  }
  return { id: teamId, outs: state };
}

/** What refresh (and the native plugin's import) learns of a team: nothing when it is gone, else its outputs and the inputs they imply. */
export interface TeamRead {
  id?: string;
  props?: StoredTeam;
  inputs?: Record<string, unknown>;
}

/** Reads the live team. A deleted team leaves the stack; one another owner's credentials cannot see does not. */
export async function readTeam(context: ProviderContext, id: string, stored: StoredTeam | undefined): Promise<TeamRead> {
  const connection = context.connections.existing(stored);
  let record: Team;
  try {
    record = await teamsOf(context, connection).get(id, callOptions(connection));
  } catch (error) {
    if (!isTeamGone(error)) throw describeTeamFailure(id, "read", error, stored?.version ?? 0, connection);
    if (stored) await requireOwnerOf(context.owners, { kind: "team", id }, stored, connection);
    return {};
  }
  const state = teamState(record, connection, stored ? carriedTeamInputs(stored) : {});
  return { id, props: state, inputs: teamInputsOf(state) };
}

/**
 * Applies every changed field (the name, labels, policies, thresholds) with one PATCH at the
 * state's version, with an Idempotency-Key derived from the team and the body: a run after a
 * crash gets the answer the dead run never recorded. A change made outside the stack is a conflict,
 * never overwritten.
 */
export async function updateTeam(context: ProviderContext, id: string, stored: StoredTeam, desired: DesiredTeam): Promise<pulumi.dynamic.UpdateResult<StoredTeam>> {
  const connection = context.connections.require(desired.connection);
  const teams = teamsOf(context, connection);
  const changed = changedTeamFields(stored, desired);
  let record: Team | undefined;
  try {
    if (changed.length > 0) {
      const body = teamChangeRequest(stored.version, changed, desired);
      record = await teams.update(id, body, { ...callOptions(connection), idempotencyKey: derivedIdempotencyKey("change", { teamId: id, body }) });
    } else if (credentialHint(connection) !== stored.provisioningKeyHint) {
      // Only the credential changed: prove it reaches this team before recording it.
      record = await teams.get(id, callOptions(connection));
    }
  } catch (error) {
    throw describeTeamFailure(id, changed.length > 0 ? "change" : "read", error, stored.version, connection);
  }
  if (!record) return { outs: teamState(recordOf(stored), connection, desired) };
  return { outs: teamState(record, connection, desired) };
}

/** The gateway's record as a stored team holds it. */
function recordOf(stored: StoredTeam): Team {
  return { object: "team", ...stored, spendPolicy: stored.spendPolicy ?? null, rateLimitPolicy: stored.rateLimitPolicy ?? null } as Team;
}

/**
 * Deletes the team. The gateway refuses while keys belong to it (409 `team_not_empty`, naming
 * them): the stack says so and deletes nothing. Already gone counts as done; another owner's credentials do not.
 */
export async function deleteTeam(context: ProviderContext, id: string, stored: StoredTeam): Promise<void> {
  const connection = context.connections.existing(stored);
  try {
    await teamsOf(context, connection).delete(id, { expectedVersion: stored.version }, { ...callOptions(connection), idempotencyKey: derivedIdempotencyKey("delete", { teamId: id }) });
  } catch (error) {
    if (!isTeamGone(error)) throw describeTeamFailure(id, "delete", error, stored.version, connection);
    await requireOwnerOf(context.owners, { kind: "team", id }, stored, connection);
  }
}
