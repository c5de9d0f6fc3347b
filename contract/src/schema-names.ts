import { z } from "zod";
import {
  ApiKey,
  ApiKeyWithSecret,
  CreateApiKeyRequest,
  PreviousSecretUse,
  RotateApiKeyRequest,
  SecretClient,
  SecretUse,
  SpendPolicyRecord,
  SpendWindowState,
  UpdateApiKeyRequest,
  VersionedRequest,
} from "./api-key";
import { ErrorEnvelope } from "./errors";
import { Model } from "./models";
import { LoggingPolicy, ModelPolicy, RateLimitPolicy, SpendPolicy, SpendWindowLimit } from "./policies";
import { Principal } from "./principal";
import { AuditEvent, AuditVerification } from "./audit";
import { BulkRotateRequest, BulkRotation } from "./bulk-rotation";
import { AuditEventList, ApiKeyList, ModelList, TeamList, WebhookDeliveryList, WebhookList } from "./routes";
import { CreateTeamRequest, DeletedTeam, Team, UpdateTeamRequest } from "./teams";
import {
  AuditWebhookEvent,
  BudgetThresholdEvent,
  TeamBudgetThresholdEvent,
  CreateWebhookRequest,
  DeletedWebhook,
  KeyExpiredEvent,
  KeyExpiringEvent,
  RotateWebhookSecretRequest,
  RotationDueEvent,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from "./webhooks";

/**
 * The account API's wire objects by the name the OpenAPI document gives them
 * (`#/components/schemas/<name>`). Named once here, every operation refers to them, so a client
 * generated from the document (the Terraform provider's Go client) has one `ApiKey` type rather
 * than one per operation. A request body is named by its output schema, an answer by its own.
 */
const NAMED_SCHEMAS = {
  ApiKey,
  ApiKeyWithSecret,
  ApiKeyList,
  CreateApiKeyRequest,
  UpdateApiKeyRequest,
  RotateApiKeyRequest,
  VersionedRequest,
  BulkRotateRequest,
  BulkRotation,
  // Extension secret_use, named so the Go client reads `retiredReason` (a loose enum) with its own type.
  SecretUse,
  PreviousSecretUse,
  SecretClient,
  SpendPolicy,
  SpendWindowLimit,
  SpendPolicyRecord,
  SpendWindowState,
  LoggingPolicy,
  ModelPolicy,
  RateLimitPolicy,
  Principal,
  Model,
  ModelList,
  ErrorEnvelope,
  AuditEvent,
  AuditEventList,
  AuditVerification,
  Team,
  TeamList,
  CreateTeamRequest,
  UpdateTeamRequest,
  DeletedTeam,
  Webhook,
  WebhookWithSecret,
  WebhookList,
  CreateWebhookRequest,
  UpdateWebhookRequest,
  RotateWebhookSecretRequest,
  DeletedWebhook,
  WebhookDelivery,
  WebhookDeliveryList,
  // The event catalog: each payload a webhook endpoint receives, named so the document lists them.
  BudgetThresholdEvent,
  TeamBudgetThresholdEvent,
  KeyExpiringEvent,
  KeyExpiredEvent,
  RotationDueEvent,
  AuditWebhookEvent,
} as const satisfies Record<string, z.ZodType>;

/** A registry of {@link NAMED_SCHEMAS}, as zod's JSON Schema conversion takes them (`metadata`). */
export function namedSchemaRegistry(): z.core.$ZodRegistry<{ id: string }> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) registry.add(schema, { id });
  return registry;
}
