import type { PreviousSecretUse, SecretClient } from "@gateway-keys/contract";
import { AbortError, APIError, ConflictError, ConnectionError, GatewayError, NotFoundError, ResponseValidationError, TimeoutError } from "@gateway-keys/sdk";
import { settingKey, type Connection } from "./connection";
import { KeyOperationError } from "./errors";

/** The Pulumi command that retries an action after a refresh. */
const retryCommand = (action: string) => (action === "revoke" ? "pulumi destroy" : "pulumi up");

export function staleVersion(keyId: string, action: string, stateVersion: number, gatewayVersion: number | undefined): KeyOperationError {
  const now = gatewayVersion === undefined ? "a newer version" : `version ${gatewayVersion}`;
  return new KeyOperationError(
    `key ${keyId} changed outside this stack: state has version ${stateVersion}, the gateway has ${now}; ` +
      `run \`pulumi refresh\`, review, then \`${retryCommand(action)}\`. Nothing was overwritten.`,
  );
}

export function revokedOutside(keyId: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} was revoked outside this stack and can never be used again; ` +
      "run `pulumi refresh` (the key leaves the stack), then `pulumi up` to create a new one.",
  );
}

export function goneOutside(keyId: string, baseUrl: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} no longer exists on ${baseUrl}; run \`pulumi refresh\` (the key leaves the stack), then \`pulumi up\` to create a new one.`,
  );
}

export function wrongOwner(
  keyId: string,
  keyOwner: string,
  credentialOwner: string,
  connection: Pick<Connection, "baseUrl" | "namespace">,
): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} belongs to owner ${keyOwner}, but the provisioning key configured for ${connection.baseUrl} belongs to owner ` +
      `${credentialOwner}; nothing was changed. Configure owner ${keyOwner}'s provisioning key ` +
      `(${settingKey(connection.namespace, "provisioningKey")}, or the key's \`connection\`) to manage this key.`,
  );
}

export function ownerUnknown(keyId: string, baseUrl: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} is not visible to the provisioning key configured for ${baseUrl}, which is not the one that managed it, ` +
      "and this gateway cannot say whose key that is (no whoami): the key may be gone, or belong to another owner. " +
      "Nothing was changed. Configure the provisioning key that manages this key and run the command again.",
  );
}

export function cannotMove(keyId: string, from: string, to: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} lives on ${from}, but the gateway configured now is ${to}. Moving it means creating a new key there ` +
      "and revoking this one, which needs this key's own credentials, and they came from stack config that has changed. " +
      "Nothing was changed. Either restore the configuration and `pulumi destroy` first, or give the key a `connection` " +
      "input holding its current gateway and provisioning key, run `pulumi up`, then change the connection.",
  );
}

export function adoptionPinned(keyId: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} must be replaced (another gateway or owner), but the program still adopts it (\`import\` or \`adoptKeyId\`); ` +
      "remove that option first: the replacement is a new key. Nothing was changed.",
  );
}

export function graceUnsupported(keyId: string, baseUrl: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId}: the gateway at ${baseUrl} cannot rotate with a grace period (it lacks the rotation_grace extension), ` +
      "so the rotation was not made. Remove `rotationGracePeriod` (the old secret then stops at once), or manage the key " +
      "with `ApiKeyPair`, which overlaps two keys on any gateway.",
  );
}

export function secretUseUnsupported(keyId: string, baseUrl: string, field: string): KeyOperationError {
  const input = field === "retireWhenIdleSeconds" ? "retireWhenIdle" : "inUseWarning";
  return new KeyOperationError(
    `key ${keyId}: the gateway at ${baseUrl} does not take ${field} (it lacks the secret_use extension), so the rotation ` +
      `was not made. Remove \`${input}\` (the old secret then keeps working for the whole rotationGracePeriod), or upgrade the gateway.`,
  );
}

/** How many clients a warning names before it says how many more there are. */
const CLIENTS_NAMED = 5;

/** A client as a person recognises it: its User-Agent and address, and when it last called. */
function clientText(client: SecretClient): string {
  const agent = client.userAgent === null ? "no User-Agent" : JSON.stringify(client.userAgent);
  return `${agent} from ${client.address ?? "an unknown address"} (last seen ${client.lastSeenAt}, ${client.requests} requests)`;
}

/**
 * The warning of a plan that rotates a key whose previous secret is still in use: a key keeps one
 * previous secret, so this rotation ends it at once and cuts its clients off, whatever its grace.
 */
export function previousSecretInUseWarning(keyId: string, previous: PreviousSecretUse): string {
  const named = previous.clients.slice(0, CLIENTS_NAMED).map(clientText);
  const more = previous.clients.length - named.length;
  const clients =
    named.length === 0
      ? "by clients the gateway did not record"
      : `by ${named.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
  return (
    `key ${keyId}: this update rotates the key while its previous secret (${previous.hint}) is still in use: ` +
    `last used ${previous.lastUsedAt}, ${previous.requestsSinceRotation} requests since the last rotation, ${clients}. ` +
    `The rotation ends that secret at once (a key keeps one previous secret; its grace would have run to ${previous.expiresAt}), ` +
    "and those clients get 401 invalid_credentials. Move them to the current secret first (the key's previousSecret output " +
    "shows when they stop), or let retireWhenIdle end it once nobody uses it, then rotate."
  );
}

/** The warning for a key whose secret someone rotated outside the stack. */
export function rotatedOutsideWarning(keyId: string): string {
  return (
    `key ${keyId} was rotated outside this stack: the \`secret\` output is the one this stack issued, and the gateway ` +
    "no longer accepts it (`secretKnown` is false). To hand out a working secret again, change `rotationTrigger` and " +
    "run `pulumi up`: the stack rotates the key and records the new secret."
  );
}

/** The warning when a create finds the key an interrupted run made for the same resource. */
export function tookOverWarning(name: string, keyId: string, rotated: boolean): string {
  const secret = rotated
    ? "rotated its secret, which never reached the stack"
    : "recovered its secret from the gateway's stored answer";
  return (
    `key "${name}": an earlier \`pulumi up\` was interrupted after the gateway created key ${keyId} for this resource; ` +
    `this update took that key over and ${secret}. No second key was made.`
  );
}

/** Why a call got no answer, in Pulumi terms: which gateway, how long we waited, what to check. */
function unanswered(error: ConnectionError | AbortError, connection: MessageConnection): string {
  if (error instanceof AbortError || error instanceof TimeoutError) {
    return (
      `the gateway at ${connection.baseUrl} did not answer within ${connection.timeoutMs / 1000} s ` +
      `(${settingKey(connection.namespace, "requestTimeout")}). Check that it is running and reachable, then run the command again.`
    );
  }
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return (
    `the gateway at ${connection.baseUrl} could not be reached${typeof code === "string" ? ` (${code})` : ""}. ` +
    `Check that it is running and that ${settingKey(connection.namespace, "baseUrl")} is right, then run the command again.`
  );
}

/** What a message needs of a connection: where, how long, and which config namespace names its settings. */
type MessageConnection = Pick<Connection, "baseUrl" | "timeoutMs" | "namespace">;

/** Answers whose SDK wording speaks of SDK calls: said again in Pulumi terms. */
function answerInPulumiTerms(error: APIError, connection: Pick<Connection, "baseUrl" | "namespace">): string | undefined {
  switch (error.code) {
    case "invalid_credentials":
      return (
        `the gateway at ${connection.baseUrl} refused the provisioning key (invalid_credentials): ` +
        `set ${settingKey(connection.namespace, "provisioningKey")} (or the key's connection.provisioningKey) to a valid provisioning key.`
      );
    case "missing_scope":
      return `the provisioning key configured for ${connection.baseUrl} lacks a scope this needs (missing_scope): use one with keys:read and keys:write.`;
    case "rate_limited":
      return `the gateway at ${connection.baseUrl} is rate limiting this provisioning key (rate_limited); run the command again in a moment.`;
    default:
      return undefined;
  }
}

/** Rewords an SDK error about one key; anything unexpected keeps the SDK's own message, without a stack. */
export function describeFailure(
  keyId: string,
  action: string,
  error: unknown,
  stateVersion: number,
  connection: MessageConnection,
): Error {
  if (error instanceof ConflictError && error.code === "conflict") return staleVersion(keyId, action, stateVersion, error.currentVersion);
  if (error instanceof ConflictError && error.code === "key_revoked") return revokedOutside(keyId);
  return describeCallFailure(`key ${keyId}`, action, error, connection);
}

/**
 * Rewords an SDK error about one team or webhook endpoint in Pulumi terms: a version another writer
 * moved on (refresh, review, up), a resource gone from the gateway (refresh leaves the stack), else
 * the call's own failure ({@link describeCallFailure}).
 */
export function describeResourceFailure(
  resource: { kind: "team" | "webhook"; id: string },
  action: string,
  error: unknown,
  stateVersion: number,
  connection: MessageConnection,
): Error {
  const subject = `${resource.kind} ${resource.id}`;
  if (error instanceof ConflictError && error.code === "conflict") {
    const now = error.currentVersion === undefined ? "a newer version" : `version ${error.currentVersion}`;
    return new KeyOperationError(
      `${subject} changed outside this stack: state has version ${stateVersion}, the gateway has ${now}; ` +
        "run `pulumi refresh`, review, then `pulumi up`. Nothing was overwritten.",
    );
  }
  if (error instanceof NotFoundError) {
    return new KeyOperationError(
      `${subject} no longer exists on ${connection.baseUrl}; run \`pulumi refresh\` (it leaves the stack), then \`pulumi up\` to create it again.`,
    );
  }
  return describeCallFailure(subject, action, error, connection);
}

/**
 * Rewords an SDK error of a call about `subject` ("key key_...", "webhook wh_..."): no answer says
 * which gateway and what to check, an answer is said in Pulumi terms where the SDK speaks of SDK
 * calls; anything unexpected keeps the SDK's own message, without a stack.
 */
export function describeCallFailure(subject: string, action: string, error: unknown, connection: MessageConnection): Error {
  if (error instanceof KeyOperationError) return error;
  if (error instanceof ConnectionError || error instanceof AbortError) {
    return new KeyOperationError(`could not ${action} ${subject}: ${unanswered(error, connection)}`, { cause: error });
  }
  if (error instanceof APIError) {
    const said = answerInPulumiTerms(error, connection) ?? error.message;
    return new KeyOperationError(`could not ${action} ${subject}: ${said}`, { cause: error });
  }
  if (error instanceof GatewayError) return new KeyOperationError(`could not ${action} ${subject}: ${error.message}`, { cause: error });
  return unexpected(error);
}

/**
 * A create that failed. With no answer, the gateway may have made the key anyway: the next
 * `pulumi up` finds it (by the resource's client reference, or the replayed answer) and takes it
 * over, so there is nothing to clean up by hand.
 */
export function describeCreateFailure(name: string, error: unknown, connection: MessageConnection, what = "key"): Error {
  if (error instanceof KeyOperationError) return error;
  if (error instanceof ConnectionError || error instanceof AbortError || error instanceof ResponseValidationError) {
    const reason = error instanceof ResponseValidationError ? error.message : unanswered(error, connection);
    return new KeyOperationError(
      `could not create ${what} "${name}": ${reason} If the gateway made the ${what} before the failure, the next \`pulumi up\` ` +
        "takes it over instead of making a second one: there is nothing to clean up.",
      { cause: error },
    );
  }
  return what === "key" ? describeFailure(`"${name}"`, "create", error, 0, connection) : describeCallFailure(`${what} "${name}"`, "create", error, connection);
}

/** A failure that is not the gateway's: our own bug, most likely. Said once, without a stack. */
export function unexpected(error: unknown): KeyOperationError {
  const message = error instanceof Error ? error.message : String(error);
  return new KeyOperationError(`the gatewaykeys provider failed unexpectedly: ${message}`, { cause: error });
}
