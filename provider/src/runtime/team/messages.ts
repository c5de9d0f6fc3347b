import { ConflictError, NotFoundError } from "@gateway-keys/sdk";
import type { Connection } from "../connection";
import { KeyOperationError } from "../errors";
import { describeCallFailure } from "../messages";

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
  if (error instanceof ConflictError && error.code === "conflict") {
    const now = error.currentVersion === undefined ? "a newer version" : `version ${error.currentVersion}`;
    return new KeyOperationError(
      `team ${teamId} changed outside this stack: state has version ${stateVersion}, the gateway has ${now}; ` +
        "run `pulumi refresh`, review, then `pulumi up`. Nothing was overwritten.",
    );
  }
  if (error instanceof ConflictError && error.code === "team_not_empty") {
    return new KeyOperationError(
      `could not delete team ${teamId}: ${error.message} Move those keys to another team (their teamId) or delete them first; nothing was deleted.`,
      { cause: error },
    );
  }
  if (isTeamGone(error)) {
    return new KeyOperationError(
      `team ${teamId} no longer exists on ${connection.baseUrl}; run \`pulumi refresh\` (it leaves the stack), then \`pulumi up\` to create it again.`,
    );
  }
  return describeCallFailure(`team ${teamId}`, action, error, connection);
}

