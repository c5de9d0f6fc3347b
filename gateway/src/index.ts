/**
 * `@gateway-keys/gateway`: a self-hostable model gateway with key management, embeddable in tests
 * and demos (`startGateway`) or run from the `gateway` CLI.
 */
export { createApp, BODY_LIMIT_BYTES, DEFAULT_IDEMPOTENCY_TTL_MS } from "./app";
export type { AppDependencies, GatewayControls } from "./app";
export type { LoggerSetting } from "./http/request-log";
export { startGateway } from "./server";
export type { StartGatewayOptions, RunningGateway } from "./server";
export { openSqliteStore } from "./store/sqlite/sqlite-store";
export type { SqliteStoreOptions } from "./store/sqlite/sqlite-store";
export { openPostgresStore } from "./store/postgres/postgres-store";
export type { PostgresStoreOptions } from "./store/postgres/postgres-store";
export type { KeyChangeTiming } from "./store/postgres/key-change-listener";
export type * from "./store/types";
export { createProvisioningKey, OWNER_ID_PATTERN } from "./keys/provisioning";
export type { CreateProvisioningKeyOptions, CreatedProvisioningKey } from "./keys/provisioning";
export { GatewayError } from "./errors";
export type { GatewayErrorDetails } from "./errors";
export { ENCRYPTION_KEY_ENV, keyFilePathFor } from "./encryption-key";
export type { RateLimitOptions } from "./http/credential-throttle";
export type { MaintenanceResult } from "./policies/retention";
export type { CatalogModel } from "./models/catalog";
export type { ModelPricing } from "./metering/pricing";
export { BUILT_IN_MODELS } from "./models/catalog";
export { EXTENSIONS } from "./routes/public";
export { GatewayConfig, loadGatewayConfig } from "./models/upstream-config";
export { loadOidcSettings, OIDC_CLIENT_SECRET_ENV } from "./console/oidc-config";
export type { OidcAccessRule, OidcSettings } from "./console/oidc-config";
export type { ConsoleSignIn } from "./console/routes";
export { openApiDocument, openApiDocumentText } from "./openapi-document";
export { GatewayMetrics } from "./ops/metrics";
export type { DrainOptions, DrainResult } from "./ops/shutdown";
