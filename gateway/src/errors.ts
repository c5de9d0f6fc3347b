import { ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from "@gateway-keys/contract";

/** Extra details an error may carry onto the wire. */
export interface GatewayErrorDetails {
  /** Dotted path of the field to blame (`spendPolicy.limitUnits`, or a header name). */
  param?: string;
  /** On a stale `expectedVersion`: the key's version now. */
  currentVersion?: number;
  /** On `client_reference_in_use`: the key that holds the reference. */
  keyId?: string;
  /** Response headers that go with the error, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * The gateway's one error class. Handlers throw it; the error handler turns it into the envelope
 * `{ error: { type, code, message, param?, currentVersion?, keyId? } }` with the status the contract
 * assigns to the code. Messages must never contain a secret: they are sent and logged.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly currentVersion: number | undefined;
  readonly keyId: string | undefined;
  readonly headers: Record<string, string> | undefined;
  /** The HTTP status the contract gives this error's code. A plain field: Fastify writes to it. */
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string, details: GatewayErrorDetails = {}) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.param = details.param;
    this.currentVersion = details.currentVersion;
    this.keyId = details.keyId;
    this.headers = details.headers;
    this.statusCode = ERROR_STATUS[ERROR_CODES[code]];
  }

  /** The wire body. */
  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope["error"] = { type: ERROR_CODES[this.code], code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    if (this.currentVersion !== undefined) error.currentVersion = this.currentVersion;
    if (this.keyId !== undefined) error.keyId = this.keyId;
    return { error };
  }
}
