import { z } from "zod";

/** Error types (the broad class) and the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_request_error: 400,
  authentication_error: 401,
  spend_limit_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  payload_too_large_error: 413,
  idempotency_error: 422,
  rate_limit_error: 429,
  api_error: 500,
  upstream_error: 502,
  upstream_timeout_error: 504,
  unavailable_error: 503,
} as const;
export type ErrorType = keyof typeof ERROR_STATUS;

/**
 * Stable machine codes. Clients branch on these, never on messages.
 * Each code belongs to one type; `idempotency_in_flight` is the one 409 that is safe to retry.
 */
export const ERROR_CODES = {
  validation_failed: "invalid_request_error",
  missing_idempotency_key: "invalid_request_error",
  invalid_json: "invalid_request_error",
  invalid_credentials: "authentication_error",
  /** The key's `expiresAt` has passed; its owner can extend it with PATCH. */
  key_expired: "authentication_error",
  spend_limit_reached: "spend_limit_error",
  /** A window of the key's team's spend policy is spent: `teamId`, `resetPeriod` and `resetsAt` say which and until when. */
  team_budget_exceeded: "spend_limit_error",
  wrong_key_kind: "permission_error",
  missing_scope: "permission_error",
  model_not_allowed: "permission_error",
  key_disabled: "permission_error",
  /** A person signed in to the console through OpenID Connect asked for an owner their claims do not map to. */
  owner_not_viewable: "permission_error",
  /** The console's provisioning-key sign-in is turned off (`--no-console-key-sign-in`): sign in through OpenID Connect. */
  key_sign_in_disabled: "permission_error",
  key_not_found: "not_found_error",
  webhook_not_found: "not_found_error",
  team_not_found: "not_found_error",
  route_not_found: "not_found_error",
  model_not_found: "not_found_error",
  conflict: "conflict_error",
  key_revoked: "conflict_error",
  idempotency_in_flight: "conflict_error",
  client_reference_in_use: "conflict_error",
  /** A team is deleted only without keys: `keyIds` names some of those it still has. */
  team_not_empty: "conflict_error",
  idempotency_key_reused: "idempotency_error",
  payload_too_large: "payload_too_large_error",
  rate_limited: "rate_limit_error",
  /** The key's `rateLimitPolicy` refused the request (requests or tokens per minute, or requests in flight); see `Retry-After`. */
  key_rate_limited: "rate_limit_error",
  /** The key's team's `rateLimitPolicy` refused the request (its keys together); `teamId` names it; see `Retry-After`. */
  team_rate_limited: "rate_limit_error",
  internal_error: "api_error",
  /** A provider refused the request itself (400, 404, 413, 422): its status and message, passed on. */
  upstream_rejected: "invalid_request_error",
  /** Every route's provider answered 429: `Retry-After` is the provider's. */
  upstream_rate_limited: "rate_limit_error",
  upstream_failed: "upstream_error",
  upstream_timeout: "upstream_timeout_error",
  /** `GET /readyz`: the database does not answer (or its schema is not current), or the gateway is shutting down. */
  not_ready: "unavailable_error",
  /**
   * The gateway's database cannot serve this request now (unreachable, restarting, too slow, or on
   * SQLite a full disk, a read-only file, a lock held too long): nothing was changed or charged;
   * retry after `Retry-After`.
   */
  database_unavailable: "unavailable_error",
} as const satisfies Record<string, ErrorType>;
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The one error body every endpoint returns: `{ "error": { type, code, message, param, currentVersion?, keyId?, teamId?, … } }`
 * (OpenAI's error shape: `param` is always present, `null` when no one field is to blame).
 */
export const ErrorEnvelope = z.object({
  error: z.object({
    type: z.string(),
    code: z.string(),
    message: z.string(),
    /** Dotted path of the offending field, when one field is to blame; else `null` (older gateways left it out). */
    param: z.string().nullable().optional(),
    /** On a stale `expectedVersion` (code `conflict`): the key's version now. */
    currentVersion: z.number().int().optional(),
    /** On `client_reference_in_use`: the key that holds the reference. */
    keyId: z.string().optional(),
    /** On a refusal by a team's limits (`team_budget_exceeded`, `team_rate_limited`, `model_not_allowed`) and on `team_not_empty`: the team. */
    teamId: z.string().optional(),
    /** On `team_not_empty`: keys still in the team (up to ten). */
    keyIds: z.array(z.string()).optional(),
    /** On `spend_limit_reached` and `team_budget_exceeded`: the spent window's reset period, and when it starts again (null for a lifetime cap). */
    resetPeriod: z.string().optional(),
    resetsAt: z.string().nullable().optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
