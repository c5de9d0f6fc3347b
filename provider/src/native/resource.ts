import * as pulumi from "@pulumi/pulumi";
import { ApiKeyOutputs } from "../api-key-outputs";
import type { ApiKeyArgs } from "../inputs";
import { NATIVE_API_KEY_TYPE, PACKAGE_NAME } from "./schema";
import { PLUGIN_VERSION } from "./version";

/** Output properties the engine fills in; declared as inputs left undefined, as every Pulumi SDK does. */
const OUTPUTS = [
  "keyId", "version", "secret", "secretKnown", "hint", "ownerId", "baseUrl", "provisioningKeyHint",
  "createdAt", "updatedAt", "rotatedAt", "previousSecretExpiresAt", "rotation", "clientReference",
];

/**
 * A regular API key of the gateway, managed by the native `gatewaykeys` plugin
 * (`pulumi-resource-gatewaykeys`, resource type `gatewaykeys:index:ApiKey`): the same behaviour as
 * the dynamic {@link import("../api-key").ApiKey}, plus what only a native provider can do —
 * `pulumi import gatewaykeys:index:ApiKey <name> <keyId>`, `replaceOnChanges`, and a plan that
 * shows a rotation as an update of `secret`. Needs the plugin installed
 * (`pulumi plugin install resource gatewaykeys <version> --file <archive>`). The `import` resource
 * option is Pulumi's own import here.
 *
 * @example
 * import { native } from "@gateway-keys/provider";
 * const ci = new native.ApiKey("ci", { spendPolicy: { limitUnits: "100" } }, { replaceOnChanges: ["modelPolicy"] });
 * export const ciSecret = ci.secret;
 */
export class ApiKey extends ApiKeyOutputs {
  /** The resource's URN, which the key carries on the gateway. */
  declare readonly clientReference: pulumi.Output<string | undefined>;

  constructor(name: string, args: ApiKeyArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    const inputs: Record<string, unknown> = {
      name: args.name,
      state: args.state,
      spendPolicy: args.spendPolicy,
      loggingPolicy: args.loggingPolicy,
      modelPolicy: args.modelPolicy,
      rotationTrigger: args.rotationTrigger,
      rotateAfter: args.rotateAfter,
      rotationGracePeriod: args.rotationGracePeriod,
      connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
      adoptKeyId: args.adoptKeyId,
      // Lets `check` show a planned rotation's secret as unknown in a preview, and only there.
      planning: pulumi.runtime.isDryRun(),
    };
    for (const output of OUTPUTS) inputs[output] = undefined;
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), "secret", "connection"];
    super(NATIVE_API_KEY_TYPE, name, inputs, { version: PLUGIN_VERSION, ...opts, additionalSecretOutputs });
  }
}

/** Configuration of an explicit {@link Provider}; each left out falls back to the environment. */
export interface ProviderArgs {
  /** Base URL of the gateway; else `GATEWAY_BASE_URL`. */
  baseUrl?: pulumi.Input<string>;
  /** Provisioning key of the owner (`gwp_...`), stored as a secret; else `GATEWAY_PROVISIONING_KEY`. */
  provisioningKey?: pulumi.Input<string>;
  /** Time limit of one gateway call in seconds (1 to 300); else `GATEWAY_REQUEST_TIMEOUT`, default 30. */
  requestTimeout?: pulumi.Input<number>;
}

/**
 * An explicit `gatewaykeys` provider: another gateway or owner than the stack config
 * (`gatewaykeys:baseUrl`, `gatewaykeys:provisioningKey`) names. Pass it as `{ provider }`.
 */
export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    const inputs = {
      baseUrl: args.baseUrl,
      provisioningKey: args.provisioningKey === undefined ? undefined : pulumi.secret(args.provisioningKey),
      requestTimeout: args.requestTimeout,
    };
    super(PACKAGE_NAME, name, inputs, { version: PLUGIN_VERSION, ...opts });
  }
}
