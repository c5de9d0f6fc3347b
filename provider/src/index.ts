/**
 * Gateway API keys as code: the `ApiKey` Pulumi resource, and `ApiKeyPair` for zero-downtime
 * rotation on any gateway.
 *
 * @example
 * import { ApiKey } from "@gateway-keys/provider";
 * const ci = new ApiKey("ci", { spendPolicy: { limitUnits: "100" }, rotateAfter: "30d", rotationGracePeriod: "1h" });
 * export const secret = ci.secret;
 */
export { ApiKey } from "./api-key";
export { ApiKeyPair, type ApiKeyPairArgs, type PairSlot } from "./api-key-pair";
export type { ApiKeyArgs, GatewayConnectionArgs, LoggingPolicyArgs, ModelPolicyArgs, SpendPolicyArgs } from "./inputs";
/** The same key through the native `gatewaykeys` plugin: `native.ApiKey` and an explicit `native.Provider`. */
export * as native from "./native/resource";
