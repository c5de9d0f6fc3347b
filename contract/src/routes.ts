import { z } from "zod";
import { ApiKey, ApiKeyWithSecret, CreateApiKeyRequest, RotateApiKeyRequest, UpdateApiKeyRequest, VersionedRequest } from "./api-key";
import { AuditEvent, AuditEventsQuery, AuditVerification } from "./audit";
import { BulkRotateRequest, BulkRotation } from "./bulk-rotation";
import { LABEL_SELECTORS_MAX, LabelSelectorText } from "./label-selector";
import { ListPage, ListQuery } from "./list";
import { GatewayInfo, Model } from "./models";
import { SpeechRequest } from "./model-api/audio";
import { ChatCompletion, ChatCompletionRequest } from "./model-api/chat-completions";
import { EmbeddingsRequest, EmbeddingsResponse } from "./model-api/embeddings";
import { ImageGenerationRequest, ImagesResponse } from "./model-api/images";
import { MessageObject, MessagesRequest } from "./model-api/messages";
import { ModerationRequest, ModerationResponse } from "./model-api/moderations";
import { ResponseObject, ResponsesRequest } from "./model-api/responses";
import { Principal } from "./principal";
import { KeyPathParams, ModelPathParams, NoQuery } from "./route-inputs";
import type { Scope } from "./scopes";
import { CreateTeamRequest, DeletedTeam, Team, TeamPathParams, UpdateTeamRequest } from "./teams";
import {
  CreateWebhookRequest,
  DeletedWebhook,
  RotateWebhookSecretRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookPathParams,
  WebhookWithSecret,
} from "./webhooks";
import { LogEntry, LogsQuery, Metrics, SpendWindow, SpendWindowsQuery, TimelineQuery, UsageSummary, UsageTimeline } from "./usage";

/** Who may call a route: a provisioning key (with a scope, or any), a regular key, either a regular key or none, or anyone. */
export type RouteAuth = { kind: "provisioning"; scope: Scope | "any" } | { kind: "apiKey" } | { kind: "optionalApiKey" } | { kind: "none" };

/**
 * One route of the API: its method and path, who may call it, whether it needs an
 * `Idempotency-Key`, and the schemas of what it takes and answers. The gateway registers its
 * routes from these, the SDK builds its requests from them, and the OpenAPI document is generated
 * from what the gateway registered — so each route is declared once, here.
 */
export interface RouteSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path, with `:name` for each path parameter. */
  path: string;
  auth: RouteAuth;
  /** An account mutation: the `Idempotency-Key` header is required. */
  idempotent?: true;
  params?: z.ZodType;
  query: z.ZodType;
  /** The JSON body (a multipart route reads its parts in its handler, and documents them there). */
  body?: z.ZodType;
  /** The success status and the JSON answer, where the answer is JSON. */
  answer?: { status: 200 | 201; schema: z.ZodType };
  /** The error body's wire: ours (OpenAI's shape), or Anthropic's. */
  errorWire?: "anthropic";
}

const provisioning = (scope: Scope | "any") => ({ kind: "provisioning", scope }) as const;
const apiKey = { kind: "apiKey" } as const;
const ok = <Schema extends z.ZodType>(schema: Schema) => ({ status: 200, schema }) as const;

/** `GET /v1/account/logs` takes the list query plus the optional key filter. */
export const LogsListQuery = z.strictObject({ ...ListQuery.shape, ...LogsQuery.shape });

/**
 * `GET /v1/account/api-keys` takes the list query plus `label` selectors (repeat it to require
 * several): `name=value` matches keys whose label `name` is `value`; `name` alone, keys that have it.
 */
export const KeysListQuery = z.strictObject({
  ...ListQuery.shape,
  label: z
    .union([z.string(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(z.array(LabelSelectorText).max(LABEL_SELECTORS_MAX, { error: `at most ${LABEL_SELECTORS_MAX} label selectors` }))
    .optional(),
});

/** A page of keys, the answer of `listKeys`: one schema, so the OpenAPI document names it. */
export const ApiKeyList = ListPage(ApiKey);
/** A page of models, the answer of `models`. */
export const ModelList = ListPage(Model);
/** A page of audit events, newest first. */
export const AuditEventList = ListPage(AuditEvent);
/** A page of teams, oldest first. */
export const TeamList = ListPage(Team);
/** A page of webhook endpoints, oldest first. */
export const WebhookList = ListPage(Webhook);
/** A page of one endpoint's deliveries, newest first. */
export const WebhookDeliveryList = ListPage(WebhookDelivery);

/** Every route of the API but the operational ones (`/healthz`, `/readyz`, `/openapi.json`). */
export const ROUTES = {
  listKeys: { method: "GET", path: "/v1/account/api-keys", auth: provisioning("keys:read"), query: KeysListQuery, answer: ok(ApiKeyList) },
  createKey: {
    method: "POST",
    path: "/v1/account/api-keys",
    auth: provisioning("keys:write"),
    idempotent: true,
    query: NoQuery,
    body: CreateApiKeyRequest,
    answer: { status: 201, schema: ApiKeyWithSecret },
  },
  /**
   * Extension `bulk_rotation`: rotate every key a label selector selects with one set of terms,
   * after a dry run that lists them and their clients. A path of its own, beside the `/:keyId` ones.
   */
  bulkRotateKeys: {
    method: "POST",
    path: "/v1/account/api-keys/bulk-rotate",
    auth: provisioning("keys:write"),
    idempotent: true,
    query: NoQuery,
    body: BulkRotateRequest,
    answer: ok(BulkRotation),
  },
  /** Extension `single_key_get`. */
  getKey: { method: "GET", path: "/v1/account/api-keys/:keyId", auth: provisioning("keys:read"), params: KeyPathParams, query: NoQuery, answer: ok(ApiKey) },
  updateKey: {
    method: "PATCH",
    path: "/v1/account/api-keys/:keyId",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: KeyPathParams,
    query: NoQuery,
    body: UpdateApiKeyRequest,
    answer: ok(ApiKey),
  },
  rotateKey: {
    method: "POST",
    path: "/v1/account/api-keys/:keyId/rotate",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: KeyPathParams,
    query: NoQuery,
    body: RotateApiKeyRequest,
    answer: ok(ApiKeyWithSecret),
  },
  revokeKey: {
    method: "POST",
    path: "/v1/account/api-keys/:keyId/revoke",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: KeyPathParams,
    query: NoQuery,
    body: VersionedRequest,
    answer: ok(ApiKey),
  },
  /** The key's spend per window of its current reset period, newest first. */
  spendWindows: {
    method: "GET",
    path: "/v1/account/api-keys/:keyId/spend-windows",
    auth: provisioning("usage:read"),
    params: KeyPathParams,
    query: SpendWindowsQuery,
    answer: ok(ListPage(SpendWindow)),
  },
  usageSummary: { method: "GET", path: "/v1/account/usage/summary", auth: provisioning("usage:read"), query: NoQuery, answer: ok(UsageSummary) },
  /** Requests and cost per hour or day, by model and status, from the request logs. */
  usageTimeline: { method: "GET", path: "/v1/account/usage/timeline", auth: provisioning("usage:read"), query: TimelineQuery, answer: ok(UsageTimeline) },
  /** Extension `usage_metrics`. */
  metrics: { method: "GET", path: "/v1/account/metrics", auth: provisioning("usage:read"), query: NoQuery, answer: ok(Metrics) },
  /** Extension `request_logs`. */
  logs: { method: "GET", path: "/v1/account/logs", auth: provisioning("usage:read"), query: LogsListQuery, answer: ok(ListPage(LogEntry)) },
  /** Account changes, newest first, filtered by key, action and time range. */
  listAuditEvents: { method: "GET", path: "/v1/account/audit-events", auth: provisioning("keys:read"), query: AuditEventsQuery, answer: ok(AuditEventList) },
  /** Walks the owner's audit chain and says whether any event was edited, inserted or removed. */
  verifyAuditEvents: { method: "GET", path: "/v1/account/audit-events/verify", auth: provisioning("keys:read"), query: NoQuery, answer: ok(AuditVerification) },
  listWebhooks: { method: "GET", path: "/v1/account/webhooks", auth: provisioning("keys:read"), query: ListQuery, answer: ok(WebhookList) },
  createWebhook: {
    method: "POST",
    path: "/v1/account/webhooks",
    auth: provisioning("keys:write"),
    idempotent: true,
    query: NoQuery,
    body: CreateWebhookRequest,
    answer: { status: 201, schema: WebhookWithSecret },
  },
  getWebhook: { method: "GET", path: "/v1/account/webhooks/:webhookId", auth: provisioning("keys:read"), params: WebhookPathParams, query: NoQuery, answer: ok(Webhook) },
  updateWebhook: {
    method: "PATCH",
    path: "/v1/account/webhooks/:webhookId",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: WebhookPathParams,
    query: NoQuery,
    body: UpdateWebhookRequest,
    answer: ok(Webhook),
  },
  rotateWebhookSecret: {
    method: "POST",
    path: "/v1/account/webhooks/:webhookId/rotate-secret",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: WebhookPathParams,
    query: NoQuery,
    body: RotateWebhookSecretRequest,
    answer: ok(WebhookWithSecret),
  },
  deleteWebhook: {
    method: "DELETE",
    path: "/v1/account/webhooks/:webhookId",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: WebhookPathParams,
    query: NoQuery,
    answer: ok(DeletedWebhook),
  },
  /** One endpoint's deliveries, newest first: pending, delivered and failed. */
  listWebhookDeliveries: {
    method: "GET",
    path: "/v1/account/webhooks/:webhookId/deliveries",
    auth: provisioning("keys:read"),
    params: WebhookPathParams,
    query: ListQuery,
    answer: ok(WebhookDeliveryList),
  },
  /** Teams of the owner, oldest first. */
  listTeams: { method: "GET", path: "/v1/account/teams", auth: provisioning("keys:read"), query: ListQuery, answer: ok(TeamList) },
  createTeam: {
    method: "POST",
    path: "/v1/account/teams",
    auth: provisioning("keys:write"),
    idempotent: true,
    query: NoQuery,
    body: CreateTeamRequest,
    answer: { status: 201, schema: Team },
  },
  getTeam: { method: "GET", path: "/v1/account/teams/:teamId", auth: provisioning("keys:read"), params: TeamPathParams, query: NoQuery, answer: ok(Team) },
  updateTeam: {
    method: "PATCH",
    path: "/v1/account/teams/:teamId",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: TeamPathParams,
    query: NoQuery,
    body: UpdateTeamRequest,
    answer: ok(Team),
  },
  /** Refused with 409 `team_not_empty` while keys are in the team. */
  deleteTeam: {
    method: "DELETE",
    path: "/v1/account/teams/:teamId",
    auth: provisioning("keys:write"),
    idempotent: true,
    params: TeamPathParams,
    query: NoQuery,
    // The version the caller last saw, as revoking a key takes it.
    body: VersionedRequest,
    answer: ok(DeletedTeam),
  },
  /** Extension `whoami`. */
  whoami: { method: "GET", path: "/v1/account/whoami", auth: provisioning("any"), query: NoQuery, answer: ok(Principal) },

  chatCompletions: { method: "POST", path: "/v1/chat/completions", auth: apiKey, query: NoQuery, body: ChatCompletionRequest, answer: ok(ChatCompletion) },
  responses: { method: "POST", path: "/v1/responses", auth: apiKey, query: NoQuery, body: ResponsesRequest, answer: ok(ResponseObject) },
  messages: { method: "POST", path: "/v1/messages", auth: apiKey, query: NoQuery, body: MessagesRequest, answer: ok(MessageObject), errorWire: "anthropic" },
  embeddings: { method: "POST", path: "/v1/embeddings", auth: apiKey, query: NoQuery, body: EmbeddingsRequest, answer: ok(EmbeddingsResponse) },
  moderations: { method: "POST", path: "/v1/moderations", auth: apiKey, query: NoQuery, body: ModerationRequest, answer: ok(ModerationResponse) },
  imageGenerations: { method: "POST", path: "/v1/images/generations", auth: apiKey, query: NoQuery, body: ImageGenerationRequest, answer: ok(ImagesResponse) },
  /** Answers audio bytes, not JSON. */
  speech: { method: "POST", path: "/v1/audio/speech", auth: apiKey, query: NoQuery, body: SpeechRequest },
  /** A multipart form: a `file` and text fields (`TranscriptionFields` for a built-in model). */
  transcriptions: { method: "POST", path: "/v1/audio/transcriptions", auth: apiKey, query: NoQuery },

  models: { method: "GET", path: "/v1/models", auth: { kind: "optionalApiKey" }, query: NoQuery, answer: ok(ModelList) },
  model: { method: "GET", path: "/v1/models/:model", auth: { kind: "optionalApiKey" }, params: ModelPathParams, query: NoQuery, answer: ok(Model) },
  startups: { method: "GET", path: "/v1/startups", auth: { kind: "none" }, query: NoQuery, answer: ok(GatewayInfo) },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** A route's path with its parameters filled in, each percent-encoded. */
export function routePath(route: Pick<RouteSpec, "path">, params: Record<string, string> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`routePath: ${route.path} needs the parameter ${name}`);
    return encodeURIComponent(value);
  });
}
