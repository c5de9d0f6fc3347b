import { NotFoundError } from "@gateway-keys/sdk";
import type { Connection } from "../connection";
import { describeResourceFailure } from "../messages";

/** A 404 about an endpoint: it was deleted (or never was this owner's). */
export const isWebhookGone = (error: unknown): boolean => error instanceof NotFoundError;

/** Rewords an SDK error about one webhook endpoint in Pulumi terms: what happened and the commands that resolve it. */
export function describeWebhookFailure(
  webhookId: string,
  action: string,
  error: unknown,
  stateVersion: number,
  connection: Pick<Connection, "baseUrl" | "timeoutMs" | "namespace">,
): Error {
  return describeResourceFailure({ kind: "webhook", id: webhookId }, action, error, stateVersion, connection);
}

/** The warning for an endpoint whose signing secret the stack does not hold. */
export function unknownSigningSecretWarning(webhookId: string, why: string): string {
  return (
    `webhook ${webhookId}: ${why}, so the stack does not hold its current signing secret (signingSecretKnown is false; ` +
    "the gateway shows a secret only when it makes one). To have the stack hold one, change `rotationTrigger` and run `pulumi up`: " +
    "the endpoint's secret is rotated in place, the old one signing beside it for `rotationOverlap`."
  );
}

