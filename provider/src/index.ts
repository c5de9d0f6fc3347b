/**
 * Gateway API keys as code: the `ApiKey` Pulumi resource, `ApiKeyPair` for zero-downtime
 * rotation on any gateway, `Webhook` for the gateway's signed events, and `Team` for a budget,
 * rate limits and a model ceiling shared by many keys.
 *
 * @example
 * import { ApiKey } from "@gateway-keys/provider";
 * const ci = new ApiKey("ci", { spendPolicy: { limitUnits: "100" }, rotateAfter: "30d", rotationGracePeriod: "1h" });
 * export const secret = ci.secret;
 */
export { ApiKey } from "./api-key";
export { Webhook } from "./webhook";
export { Team } from "./team";
export type { SpendWindowOutput } from "./team-base";
export { ApiKeyPair, type ApiKeyPairArgs, type PairSlot } from "./api-key-pair";
export type { ApiKeyArgs, GatewayConnectionArgs, LoggingPolicyArgs, ModelPolicyArgs, RateLimitPolicyArgs, SpendPolicyArgs, SpendWindowArgs, TeamArgs, WebhookArgs } from "./inputs";
/** The same resources through the native `gatewaykeys` plugin: `native.ApiKey`, `native.Webhook`, `native.Team` and an explicit `native.Provider`. */
export * as native from "./native/resource";
