import { ERROR_CODES, ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from "@gateway-keys/contract";

/** A provider's own refusal of a request, passed on to the client in the client's wire. */
export interface UpstreamRefusal {
  /** The provider's HTTP status (400, 404, 413, 422, or 429 once every route refused). */
  status: number;
  /** The provider's error type and code, when its body named them (OpenAI-wire providers do). */
  type?: string;
  code?: string;
}

/** Extra details an error may carry onto the wire. */
export interface GatewayErrorDetails {
  /** Dotted path of the field to blame (`spendPolicy.limitUnits`, or a header name). */
  param?: string;
  /** On a stale `expectedVersion`: the key's version now. */
  currentVersion?: number;
  /** On `client_reference_in_use`: the key that holds the reference. */
  keyId?: string;
  /** On a refusal by a team's limits, and on `team_not_empty`: the team. */
  teamId?: string;
  /** On `team_not_empty`: some of the team's keys. */
  keyIds?: string[];
  /** On a spent window: its reset period and when it starts again (null: a lifetime cap). */
  window?: { resetPeriod: string; resetsAt: string | null };
  /** Response headers that go with the error, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** When the error is a provider's refusal: its status, type and code replace the code's own. */
  upstream?: UpstreamRefusal;
}

/**
 * The gateway's one error class. Handlers throw it; the error handler turns it into the envelope
 * `{ error: { type, code, message, param, currentVersion?, keyId? } }` with the status the contract
 * assigns to the code. Messages must never contain a secret: they are sent and logged.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly currentVersion: number | undefined;
  readonly keyId: string | undefined;
  readonly details: GatewayErrorDetails;
  readonly headers: Record<string, string> | undefined;
  /** The HTTP status: the contract's for this error's code, or a provider's refusal's. A plain field: Fastify writes to it. */
  readonly statusCode: number;
  /** The error type on the wire: the provider's when it named one, else the contract's for the code. */
  readonly wireType: string | undefined;
  /** The code on the wire: the provider's when it named one, else ours. */
  readonly wireCode: string;

  constructor(code: ErrorCode, message: string, details: GatewayErrorDetails = {}) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.param = details.param;
    this.currentVersion = details.currentVersion;
    this.keyId = details.keyId;
    this.details = details;
    this.headers = details.headers;
    this.statusCode = details.upstream?.status ?? ERROR_STATUS[ERROR_CODES[code]];
    this.wireType = details.upstream && (details.upstream.type ?? ERROR_CODES[code]);
    this.wireCode = details.upstream?.code ?? code;
  }

  /** The wire body. */
  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope["error"] = { type: this.wireType ?? ERROR_CODES[this.code], code: this.wireCode, message: this.message, param: this.param ?? null };
    if (this.currentVersion !== undefined) error.currentVersion = this.currentVersion;
    if (this.keyId !== undefined) error.keyId = this.keyId;
    if (this.details.teamId !== undefined) error.teamId = this.details.teamId;
    if (this.details.keyIds !== undefined) error.keyIds = this.details.keyIds;
    if (this.details.window !== undefined) Object.assign(error, this.details.window);
    return { error };
  }
}

/** Anthropic's error type for an HTTP status, for errors that come with a status only (a provider's refusal). */
export function anthropicErrorTypeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 402) return "billing_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return status === 529 ? "overloaded_error" : "api_error";
  return "invalid_request_error";
}

/**
 * The error body of the Messages wire, `{ type: "error", error: { type, message } }`, with our
 * error types mapped onto Anthropic's where they differ.
 */
export function anthropicError(error: GatewayError): { type: "error"; error: { type: string; message: string } } {
  const ours = ERROR_CODES[error.code];
  const type =
    error.wireType !== undefined
      ? anthropicErrorTypeOf(error.statusCode)
      : ours === "spend_limit_error"
        ? "billing_error"
        : ours === "payload_too_large_error"
          ? "request_too_large"
          : ours === "conflict_error" || ours === "idempotency_error"
            ? "invalid_request_error"
            : ours === "upstream_error" || ours === "upstream_timeout_error"
              ? "api_error"
              : ours;
  return { type: "error", error: { type, message: error.message } };
}

/**
 * 409 `conflict` for a stale `expectedVersion` of a versioned resource (a key, a webhook): the
 * answer says the version now, so the client reads again and reapplies its change.
 */
export function versionConflict(resource: "key" | "webhook" | "team", expectedVersion: number, currentVersion: number): GatewayError {
  return new GatewayError(
    "conflict",
    `The ${resource} changed since you read it (expectedVersion ${expectedVersion}, current version ${currentVersion}); read it again and reapply your change.`,
    { param: "expectedVersion", currentVersion },
  );
}
