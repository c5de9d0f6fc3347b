import * as pulumi from "@pulumi/pulumi";
import type { ApiKeyArgs, GatewayConnectionArgs } from "../inputs";
import type { RotationRecord, StoredKey } from "../runtime/shapes";
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
export class ApiKey extends pulumi.CustomResource {
  /** The key's id on the gateway (`key_...`); also the resource id. */
  declare readonly keyId: pulumi.Output<string>;
  /** The key's version; goes up on every change, rotation and revoke. */
  declare readonly version: pulumi.Output<number>;
  /** The secret this stack issued (a Pulumi secret); undefined for an imported key until the stack rotates it. */
  declare readonly secret: pulumi.Output<string | undefined>;
  /** Whether `secret` is the key's current secret: false for an imported key, or one rotated outside this stack. */
  declare readonly secretKnown: pulumi.Output<boolean>;
  /** Prefix and last four characters of the key's current secret, safe to show. */
  declare readonly hint: pulumi.Output<string>;
  /** `active` or `disabled`. */
  declare readonly state: pulumi.Output<StoredKey["state"]>;
  /** The owner the key belongs to. */
  declare readonly ownerId: pulumi.Output<string>;
  /** The gateway the key lives on. */
  declare readonly baseUrl: pulumi.Output<string>;
  /** Hint of the provisioning key the key was last managed with. */
  declare readonly provisioningKeyHint: pulumi.Output<string>;
  /** The key's own `connection` input, if it has one (a Pulumi secret). */
  declare readonly connection: pulumi.Output<GatewayConnectionArgs | undefined>;
  /** The key's label. */
  declare readonly name: pulumi.Output<string>;
  /** The spending cap; undefined when the key has none. */
  declare readonly spendPolicy: pulumi.Output<StoredKey["spendPolicy"]>;
  /** The logging policy, defaults filled in. */
  declare readonly loggingPolicy: pulumi.Output<StoredKey["loggingPolicy"]>;
  /** The model policy, defaults filled in. */
  declare readonly modelPolicy: pulumi.Output<StoredKey["modelPolicy"]>;
  /** When the key was created (ISO 8601). */
  declare readonly createdAt: pulumi.Output<string>;
  /** When the key last changed (ISO 8601). */
  declare readonly updatedAt: pulumi.Output<string>;
  /** When the secret was last rotated (ISO 8601), or null. */
  declare readonly rotatedAt: pulumi.Output<string | null>;
  /** Until when the secret the last rotation replaced keeps working (ISO 8601), or null. */
  declare readonly previousSecretExpiresAt: pulumi.Output<string | null>;
  /** With `rotateAfter`: when the stack issued the current secret and why. */
  declare readonly rotation: pulumi.Output<RotationRecord | undefined>;
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
