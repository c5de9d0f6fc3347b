import { ConflictError, NotFoundError } from "@gateway-keys/sdk";
import type { Connection } from "../connection";
import { KeyOperationError } from "../errors";
import { describeResourceFailure } from "../messages";

/** A 404 about a team: it was deleted (or never was this owner's). */
export const isTeamGone = (error: unknown): boolean => error instanceof NotFoundError;

/**
 * Rewords an SDK error about one team in Pulumi terms: what happened and the commands that resolve
 * it. A delete the gateway refuses while keys belong to the team keeps the gateway's message, which
 * names them, and says how to proceed.
 */
export function describeTeamFailure(
  teamId: string,
  action: string,
  error: unknown,
  stateVersion: number,
  connection: Pick<Connection, "baseUrl" | "timeoutMs" | "namespace">,
): Error {
  if (error instanceof ConflictError && error.code === "team_not_empty") {
    return new KeyOperationError(
      `could not delete team ${teamId}: ${error.message} Move those keys to another team (their teamId) or delete them first; nothing was deleted.`,
      { cause: error },
    );
  }
  return describeResourceFailure({ kind: "team", id: teamId }, action, error, stateVersion, connection);
}

