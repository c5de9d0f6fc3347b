/**
 * Gateway API keys as code: the `ApiKey` Pulumi resource, `ApiKeyPair` for zero-downtime
 * rotation on any gateway, and `Webhook` for the gateway's signed events.
 *
 * @example
 * import { ApiKey } from "@gateway-keys/provider";
 * const ci = new ApiKey("ci", { spendPolicy: { limitUnits: "100" }, rotateAfter: "30d", rotationGracePeriod: "1h" });
 * export const secret = ci.secret;
 */
export { ApiKey } from "./api-key";
export { Webhook } from "./webhook";
export { ApiKeyPair, type ApiKeyPairArgs, type PairSlot } from "./api-key-pair";
export type { ApiKeyArgs, GatewayConnectionArgs, LoggingPolicyArgs, ModelPolicyArgs, SpendPolicyArgs, WebhookArgs } from "./inputs";
/** The same resources through the native `gatewaykeys` plugin: `native.ApiKey`, `native.Webhook` and an explicit `native.Provider`. */
export * as native from "./native/resource";
