/**
 * The one error class the provider reports. It imports nothing, so any runtime module can throw it
 * (the connection when nothing is configured, the messages that word a failure) without an import
 * cycle between them.
 */

/**
 * Errors the provider reports, worded for the person running Pulumi: what happened to which key,
 * and the commands that resolve it. Never a secret: SDK messages are already scrubbed, and nothing
 * here quotes a credential. No stack: the engine prints the message, and a stack of our own code
 * would not help anyone running `pulumi up`.
 */
export class KeyOperationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KeyOperationError";
    this.stack = `${this.name}: ${this.message}`;
  }
}
