import { ConflictError, ConnectionError, GatewayError, ResponseValidationError } from "@gateway-keys/sdk";

/**
 * Errors the provider reports, worded for the person running Pulumi: what happened to which key,
 * and the commands that resolve it. Never a secret: SDK messages are already scrubbed, and nothing
 * here quotes a credential.
 */
export class KeyOperationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KeyOperationError";
  }
}

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

export function wrongOwner(keyId: string, keyOwner: string, credentialOwner: string, baseUrl: string): KeyOperationError {
  return new KeyOperationError(
    `key ${keyId} belongs to owner ${keyOwner}, but the provisioning key configured for ${baseUrl} belongs to owner ` +
      `${credentialOwner}; nothing was changed. Configure owner ${keyOwner}'s provisioning key ` +
      "(gateway:provisioningKey, or the key's `connection`) to manage this key.",
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

/** Rewords an SDK error about one key; anything unexpected keeps the SDK's own message. */
export function describeFailure(keyId: string, action: string, error: unknown, stateVersion: number): Error {
  if (error instanceof ConflictError && error.code === "conflict") return staleVersion(keyId, action, stateVersion, error.currentVersion);
  if (error instanceof ConflictError && error.code === "key_revoked") return revokedOutside(keyId);
  if (error instanceof GatewayError) return new KeyOperationError(`could not ${action} key ${keyId}: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A create whose outcome is unknown (no answer after every retry, or an answer we could not read)
 * may have made a key that Pulumi will never record: say so, and how to find it.
 */
export function describeCreateFailure(name: string, baseUrl: string, error: unknown): Error {
  if (error instanceof ConnectionError || error instanceof ResponseValidationError) {
    return new KeyOperationError(
      `could not create key "${name}": ${error.message} The gateway at ${baseUrl} may have created it anyway. ` +
        "Before the next `pulumi up`, list the owner's keys: adopt a key of that name with `adoptKeyId` (or the " +
        "`import` option), or revoke it.",
      { cause: error },
    );
  }
  return describeFailure(name, "create", error, 0);
}
