/**
 * Gateway API keys as code: the `ApiKey` Pulumi resource.
 *
 * @example
 * import { ApiKey } from "@gateway-keys/provider";
 * const ci = new ApiKey("ci", { spendPolicy: { limitUnits: "100" } });
 * export const secret = ci.secret;
 */
export { ApiKey } from "./api-key";
export type { ApiKeyArgs, GatewayConnectionArgs, LoggingPolicyArgs, ModelPolicyArgs, SpendPolicyArgs } from "./inputs";
