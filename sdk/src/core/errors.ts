import { ErrorEnvelope, type ErrorCode } from "@gateway-keys/contract";
import { hide, redact, safeCause } from "../internal/redact";

/**
 * Machine codes an SDK error can carry: every code of the gateway's contract, plus the SDK's own
 * (`invalid_response`, `connection_error`, `timeout`, `aborted`, `invalid_argument`,
 * `missing_credentials`) and `http_<status>` for an answer without the gateway's error envelope.
 * Branch on `code`, never on `message`.
 */
export type GatewayErrorCode =
  | ErrorCode
  | "invalid_response"
  | "connection_error"
  | "timeout"
  | "aborted"
  | "invalid_argument"
  | "missing_credentials"
  | `http_${number}`
  // Another gateway may send codes this SDK does not know; they pass through unchanged.
  | (string & {});

/**
 * Root of every error the SDK throws. Carries a stable `code`; its message says what to do next and
 * never contains a secret or credential.
 *
 * @example
 * try { await client.apiKeys.get("key_123"); }
 * catch (err) { if (err instanceof GatewayError && err.code === "key_not_found") { ... } }
 */
export class GatewayError extends Error {
  /** Stable machine code; see {@link GatewayErrorCode}. */
  readonly code: GatewayErrorCode;

  constructor(code: GatewayErrorCode, message: string, options: { cause?: unknown; secrets?: readonly (string | undefined)[] } = {}) {
    super(redact(message, options.secrets));
    this.code = code;
    hide(this, "name", new.target.name);
    // Whatever failed below us may hold request options and headers; only a scrubbed copy is kept.
    if (options.cause !== undefined) hide(this, "cause", safeCause(options.cause, options.secrets));
  }
}

/** Thrown before any request is sent when an argument cannot be right (an empty keyId, a malformed idempotency key). */
export class InvalidArgumentError extends GatewayError {}

/**
 * The request could not complete: connection refused or reset, socket closed. The outcome on the
 * gateway is unknown; mutations are safe to repeat with the same idempotency key (the SDK already
 * did, `maxRetries` times). `cause` holds a scrubbed copy of the underlying error.
 *
 * @example
 * catch (err) { if (err instanceof ConnectionError) console.error(err.message, err.cause); }
 */
export class ConnectionError extends GatewayError {}

/**
 * An attempt took longer than `timeoutMs` (the SDK retried it `maxRetries` times first).
 *
 * @example
 * await client.apiKeys.list({}, { timeoutMs: 5_000 }); // may throw TimeoutError
 */
export class TimeoutError extends ConnectionError {}

/**
 * The caller's `AbortSignal` fired. Never retried.
 *
 * @example
 * const controller = new AbortController();
 * const page = client.apiKeys.list({}, { signal: controller.signal });
 */
export class AbortError extends GatewayError {}

/** One way a gateway answer failed the contract: the dotted field path and what was expected there. */
export interface ResponseIssue {
  path: string;
  message: string;
}

/**
 * The gateway answered 2xx, but the body is not JSON or does not fit the contract's schema. `path`
 * names the first offending field (`(body)` for the whole body); received values are never
 * included, since a create or rotate answer holds a secret.
 *
 * @example
 * catch (err) { if (err instanceof ResponseValidationError) console.error(err.path); }
 */
export class ResponseValidationError extends GatewayError {
  /** Status of the answer that did not fit. */
  readonly status: number;
  /** Dotted path of the first field that did not fit, e.g. `data[3].version`. */
  readonly path: string;
  /** Every field that did not fit. */
  readonly issues: readonly ResponseIssue[];

  constructor(status: number, issues: readonly ResponseIssue[], request: string) {
    const first = issues[0] ?? { path: "(body)", message: "unreadable" };
    const list = issues.slice(0, 5).map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    super(
      "invalid_response",
      `the gateway's ${status} answer to ${request} does not fit the contract (${list}); ` +
        "check that baseUrl points at a compatible gateway, or upgrade @gateway-keys/sdk",
    );
    this.status = status;
    this.path = first.path;
    this.issues = issues;
  }
}

/** What the SDK knew about a request when it failed; used to write messages that say what to do next. */
export interface ErrorContext {
  /** `METHOD /path`, for messages. */
  request: string;
  keyId?: string;
  /** The team a request is about, for messages. */
  teamId?: string;
  expectedVersion?: number;
  retryAfterMs?: number;
  requestId?: string;
  secrets?: readonly (string | undefined)[];
}

/**
 * The gateway answered with an error status. `APIError.generate` picks the subclass from the status
 * and the error envelope; `code` comes from the envelope (`http_<status>` when there is none).
 *
 * @example
 * catch (err) { if (err instanceof APIError) console.error(err.status, err.code, err.requestId); }
 */
export class APIError extends GatewayError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** Broad class from the envelope (`conflict_error`, …); undefined without an envelope. */
  readonly type: string | undefined;
  /** Dotted path of the field to blame, when one is. */
  readonly param: string | undefined;
  /** The gateway's request id, for support tickets. */
  readonly requestId: string | undefined;
  /** Whether the body was the gateway's error envelope (false: a proxy or another service answered). */
  readonly enveloped: boolean;
  /** The team whose limit refused the request (`team_budget_exceeded`, `team_rate_limited`, a team's `model_not_allowed`), or that is not empty (`team_not_empty`). */
  readonly teamId: string | undefined;

  constructor(status: number, body: ErrorEnvelope["error"] | undefined, message: string, context: ErrorContext) {
    super(body?.code ?? `http_${status}`, message, { secrets: context.secrets });
    this.status = status;
    this.type = body?.type;
    this.teamId = body?.teamId;
    this.param = body?.param ?? undefined;
    this.requestId = context.requestId;
    this.enveloped = body !== undefined;
  }

  /**
   * The one factory: chooses the subclass from the status, reads the envelope when there is one,
   * and writes a message that says what to do next.
   *
   * @example
   * const error = APIError.generate(409, body, { request: "POST /v1/account/api-keys/k/rotate", keyId: "k", expectedVersion: 1 });
   */
  static generate(status: number, body: unknown, context: ErrorContext): APIError {
    const parsed = ErrorEnvelope.safeParse(body);
    const envelope = parsed.success ? parsed.data.error : undefined;
    const message = describe(status, envelope, context);
    const Class = classFor(status);
    return new Class(status, envelope, message, context);
  }
}

/** 400: the request broke a rule; `param` names the field (codes `validation_failed`, `missing_idempotency_key`, `invalid_json`). */
export class ValidationError extends APIError {}
/** 401 `invalid_credentials`: the key is unknown, mistyped, rotated away or revoked. */
export class AuthenticationError extends APIError {}
/**
 * 402 `spend_limit_reached` (a window of the key's own spend policy is spent) or
 * `team_budget_exceeded` (a window of its team's is; `teamId` names the team).
 */
export class SpendLimitError extends APIError {
  /** The spent window's reset period, when the gateway names it. */
  readonly resetPeriod: string | undefined;
  /** When that window starts again (null: a lifetime cap), when the gateway says. */
  readonly resetsAt: string | null | undefined;

  constructor(status: number, body: ErrorEnvelope["error"] | undefined, message: string, context: ErrorContext) {
    super(status, body, message, context);
    this.resetPeriod = body?.resetPeriod;
    this.resetsAt = body?.resetsAt;
  }
}
/** 403: `wrong_key_kind`, `missing_scope`, `model_not_allowed` or `key_disabled`. */
export class PermissionError extends APIError {}
/** 404: `key_not_found`, `model_not_found`, or `route_not_found` (this gateway lacks the endpoint). */
export class NotFoundError extends APIError {}
/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends APIError {}
/** 422 `idempotency_key_reused`: the same Idempotency-Key came with a different request. */
export class IdempotencyError extends APIError {}
/** 5xx: the gateway failed (already retried `maxRetries` times). */
export class InternalServerError extends APIError {}

/**
 * 409. `code` tells them apart: `conflict` (stale `expectedVersion`; `currentVersion` says the
 * version now), `key_revoked` (revocation is final), `idempotency_in_flight` (retried by the SDK),
 * `client_reference_in_use` (a live key already holds the create's `clientReference`; `keyId` names it),
 * `team_not_empty` (a team is deleted only without keys; `keyIds` names some).
 *
 * @example
 * catch (err) {
 *   if (err instanceof ConflictError && err.code === "conflict") await client.apiKeys.rotate(id, { expectedVersion: err.currentVersion! });
 * }
 */
export class ConflictError extends APIError {
  /** On `conflict`: the key's version now, to re-read and retry with. */
  readonly currentVersion: number | undefined;
  /** On `client_reference_in_use`: the key that already holds the reference. */
  readonly keyId: string | undefined;
  /** On `team_not_empty`: keys still in the team (up to ten). */
  readonly keyIds: readonly string[] | undefined;

  constructor(status: number, body: ErrorEnvelope["error"] | undefined, message: string, context: ErrorContext) {
    super(status, body, message, context);
    this.currentVersion = body?.currentVersion;
    this.keyId = body?.keyId;
    this.keyIds = body?.keyIds;
  }
}

/**
 * 429 `rate_limited` (already retried `maxRetries` times, honouring `Retry-After`).
 *
 * @example
 * catch (err) { if (err instanceof RateLimitError) await sleep(err.retryAfterMs ?? 1000); }
 */
export class RateLimitError extends APIError {
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, body: ErrorEnvelope["error"] | undefined, message: string, context: ErrorContext) {
    super(status, body, message, context);
    this.retryAfterMs = context.retryAfterMs;
  }
}

type APIErrorClass = new (
  status: number,
  body: ErrorEnvelope["error"] | undefined,
  message: string,
  context: ErrorContext,
) => APIError;

function classFor(status: number): APIErrorClass {
  switch (status) {
    case 400: return ValidationError;
    case 401: return AuthenticationError;
    case 402: return SpendLimitError;
    case 403: return PermissionError;
    case 404: return NotFoundError;
    case 409: return ConflictError;
    case 413: return PayloadTooLargeError;
    case 422: return IdempotencyError;
    case 429: return RateLimitError;
    default: return status >= 500 ? InternalServerError : APIError;
  }
}

/** What to do next, per code. The gateway's own message says what went wrong. */
const NEXT_STEP: Partial<Record<string, string>> = {
  validation_failed: "fix that field and send the request again",
  missing_idempotency_key: "send an Idempotency-Key header (the SDK always does; a proxy may be stripping it)",
  invalid_json: "send a JSON body with Content-Type: application/json",
  invalid_credentials: "check the key: it may be mistyped, rotated away or revoked",
  wrong_key_kind: "account endpoints take a provisioning key, model endpoints a regular API key",
  missing_scope: "use a provisioning key that carries the scope this call needs",
  model_not_allowed: "call a model the key's modelPolicy allows, or widen the policy with apiKeys.update",
  key_disabled: "set the key's state back to active with apiKeys.update",
  key_not_found: "check the keyId; keys of another owner are not visible to this provisioning key",
  route_not_found: "this gateway does not offer the endpoint; check baseUrl and the gateway's version",
  model_not_found: "pick a model id from models.list()",
  idempotency_in_flight: "the first request with this Idempotency-Key is still running; wait and retry with the same key",
  idempotency_key_reused: "an Idempotency-Key may only repeat the same request; use a fresh key for a different one",
  client_reference_in_use: "take over the key that holds the reference, or revoke it and create again",
  spend_limit_reached: "raise spendPolicy.limitUnits with apiKeys.update, or use another key",
  team_budget_exceeded: "raise the team's spendPolicy with teams.update, wait for the window to reset, or use a key of another team",
  team_rate_limited: "the team's keys together reached its rate limit: slow down and retry after the Retry-After delay",
  team_not_found: "check the teamId; teams of another owner are not visible to this provisioning key",
  team_not_empty: "move or revoke the team's keys (keyIds names some) and delete it again",
  payload_too_large: "send a smaller request",
  rate_limited: "slow down and retry after the Retry-After delay",
  internal_error: "the gateway failed; retry later, quoting the request id if it persists",
};

function describe(status: number, envelope: ErrorEnvelope["error"] | undefined, context: ErrorContext): string {
  if (!envelope) {
    return (
      `${context.request} answered ${status} without the gateway's error envelope; ` +
      "check that baseUrl points at the gateway (a proxy or another service answered)"
    );
  }
  const key = context.teamId !== undefined ? `team ${context.teamId}` : `key ${context.keyId ?? "the key"}`;
  if (envelope.code === "conflict" && envelope.currentVersion !== undefined) {
    const since = context.expectedVersion !== undefined ? ` since version ${context.expectedVersion}` : "";
    return (
      `${key} changed${since} (now ${envelope.currentVersion}): ` +
      `re-read it and retry with expectedVersion ${envelope.currentVersion}`
    );
  }
  if (envelope.code === "key_revoked") {
    return `${key} is revoked and revocation is irreversible: create a new key instead`;
  }
  const said = envelope.message.replace(/[.\s]+$/, "");
  const where = envelope.param ? ` (${envelope.param})` : "";
  const next = NEXT_STEP[envelope.code];
  return next ? `${said}${where}: ${next}` : `${said}${where}`;
}
