/**
 * `@gateway-keys/sdk`: a typed, retry-safe client of the gateway's account API and model endpoints.
 *
 * @example
 * import { GatewayClient, ConflictError } from "@gateway-keys/sdk";
 * const client = new GatewayClient({ baseUrl: "http://127.0.0.1:8787", provisioningKey });
 * const key = await client.apiKeys.create({ name: "ci" });
 *
 * @packageDocumentation
 */
export { GatewayClient, type BackoffOptions, type ClientOptions } from "./client";
export { APIPromise } from "./core/api-promise";
export {
  AbortError,
  APIError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  GatewayError,
  IdempotencyError,
  InternalServerError,
  InvalidArgumentError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ResponseValidationError,
  SpendLimitError,
  TimeoutError,
  ValidationError,
  type ErrorContext,
  type GatewayErrorCode,
  type ResponseIssue,
} from "./core/errors";
export { Page, PagePromise, type ListParams, type PageFetcher } from "./core/pagination";
export type {
  Auth,
  Logger,
  ModelRequestOptions,
  PageSpec,
  RequestOptions,
  RequestSpec,
  ResponseInfo,
  WithResponse,
} from "./core/request-options";
export { ApiKeys } from "./resources/api-keys";
export { Logs, type LogsListQuery } from "./resources/logs";
export { AuditEvents, type AuditEventsListQuery } from "./resources/audit-events";
export { Webhooks } from "./resources/webhooks";
export { Teams } from "./resources/teams";
export { AccountMetrics } from "./resources/metrics";
export { Models } from "./resources/models";
export { Responses, outputText, type CreateResponseRequest } from "./resources/responses";
export { Usage } from "./resources/usage";
export type { RequestClient } from "./core/resource";
export { VERSION } from "./version";

/** Wire types, re-exported from the shared contract so callers need one import. */
export type {
  ApiKey,
  ApiKeyWithSecret,
  CreateApiKeyRequest,
  ErrorCode,
  GatewayInfo,
  KeyState,
  ListPage,
  LogEntry,
  Metrics,
  LoggingPolicy,
  Model,
  ModelPolicy,
  Principal,
  ResponseObject,
  ResponsesRequest,
  SpendPolicy,
  SpendPolicyInput,
  SpendWindowState,
  Team,
  CreateTeamRequest,
  UpdateTeamRequest,
  DeletedTeam,
  UpdateApiKeyRequest,
  UsageSummary,
  RotateApiKeyRequest,
  VersionedRequest,
} from "@gateway-keys/contract";
