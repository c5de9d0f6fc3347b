import { ConflictError, GatewayError, NotFoundError } from "@gateway-keys/sdk";

/**
 * Errors the provider reports, worded for the person running `pulumi up`: what happened to which
 * key, and the commands that resolve it. Never a secret: SDK messages are already scrubbed.
 */
export class KeyOperationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KeyOperationError";
  }
}

export function staleVersion(keyId: string, stateVersion: number, gatewayVersion: number | undefined): KeyOperationError {
  const now = gatewayVersion === undefined ? "a newer version" : `version ${gatewayVersion}`;
  return new KeyOperationError(
    `key ${keyId} changed outside this stack: state has version ${stateVersion}, the gateway has ${now}; ` +
      "run `pulumi refresh`, review, then `pulumi up`. Nothing was overwritten.",
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

/** Rewords an SDK error about one key; anything unexpected keeps the SDK's own message. */
export function describeFailure(keyId: string, action: string, error: unknown, stateVersion: number): Error {
  if (error instanceof ConflictError && error.code === "conflict") return staleVersion(keyId, stateVersion, error.currentVersion);
  if (error instanceof ConflictError && error.code === "key_revoked") return revokedOutside(keyId);
  if (error instanceof GatewayError) return new KeyOperationError(`could not ${action} key ${keyId}: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

export { ConflictError, NotFoundError };
