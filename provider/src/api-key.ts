import * as pulumi from "@pulumi/pulumi";
import type { ApiKeyArgs } from "./inputs";
import { API_KEY_TYPE, PROVIDER_MODULE } from "./provider-module";
import type { StoredKey } from "./runtime/shapes";

/**
 * A regular API key of the gateway, managed as code. It is a Pulumi dynamic resource: the engine
 * runs its provider (./runtime) in the Node dynamic-provider plugin.
 *
 * - Create issues the key; its one-time `secret` is an encrypted Pulumi secret output.
 * - Changing `name`, `state` or a policy is an in-place update (one PATCH).
 * - Changing `rotationTrigger` rotates the secret in place: the `keyId` stays, the old secret stops
 *   working at once.
 * - Delete revokes the key, irreversibly.
 * - Every change sends the version in state as `expectedVersion`: a key changed outside the stack
 *   fails the update (run `pulumi refresh`, review, `pulumi up`) and is never overwritten.
 * - Adopt an existing key with the `import` resource option, `new ApiKey("ci", args, { import: "key_..." })`,
 *   or the `adoptKeyId` input. Its secret is unknown (`secretKnown: false`) until you rotate it by
 *   changing `rotationTrigger`.
 *
 * @example
 * const ci = new ApiKey("ci", {
 *   spendPolicy: { limitUnits: "100" },
 *   loggingPolicy: { retentionDays: 7 },
 *   rotationTrigger: "2026-11",
 * });
 * export const ciSecret = ci.secret;
 */
export class ApiKey extends pulumi.CustomResource {
  /** The key's id on the gateway (`key_...`); also the resource id. */
  declare readonly keyId: pulumi.Output<string>;
  /** The key's version; goes up on every change, rotation and revoke. */
  declare readonly version: pulumi.Output<number>;
  /** The key's secret (a Pulumi secret). Undefined when `secretKnown` is false. */
  declare readonly secret: pulumi.Output<string | undefined>;
  /** False for an adopted key, or one rotated outside this stack: rotate it to get a managed secret. */
  declare readonly secretKnown: pulumi.Output<boolean>;
  /** Prefix and last four characters of the secret, safe to show. */
  declare readonly hint: pulumi.Output<string>;
  /** `active` or `disabled`. */
  declare readonly state: pulumi.Output<StoredKey["state"]>;
  /** The owner the key belongs to (fixed by the provisioning key). */
  declare readonly ownerId: pulumi.Output<string>;
  /** The gateway the key lives on. */
  declare readonly baseUrl: pulumi.Output<string>;
  /** Hint of the provisioning key the key was last managed with; a new one makes the next preview ask its owner. */
  declare readonly provisioningKeyHint: pulumi.Output<string>;
  /** The key's label. */
  declare readonly name: pulumi.Output<string>;
  /** The spending cap, its amount in canonical spelling ("100.5"); undefined when the key has none. */
  declare readonly spendPolicy: pulumi.Output<StoredKey["spendPolicy"]>;
  /** The logging policy, defaults filled in. */
  declare readonly loggingPolicy: pulumi.Output<StoredKey["loggingPolicy"]>;
  /** The model policy, defaults filled in; a mode newer than this package reads as `Unrecognized`. */
  declare readonly modelPolicy: pulumi.Output<StoredKey["modelPolicy"]>;
  /** When the key was created (ISO 8601). */
  declare readonly createdAt: pulumi.Output<string>;
  /** When the key last changed (ISO 8601). */
  declare readonly updatedAt: pulumi.Output<string>;
  /** When the secret was last rotated (ISO 8601), or null. */
  declare readonly rotatedAt: pulumi.Output<string | null>;

  constructor(name: string, args: ApiKeyArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    // The engine's own import cannot reach a dynamic provider (its read gets no `__provider`;
    // pulumi/pulumi#16175), so the `import` option becomes an adoption the provider performs in
    // `create`: it checks the live key matches the program and takes it over, creating nothing.
    const { import: importId, ...options } = opts;
    const inputs: Record<string, unknown> = {
      name: args.name ?? name,
      state: args.state,
      spendPolicy: args.spendPolicy,
      loggingPolicy: args.loggingPolicy,
      modelPolicy: args.modelPolicy,
      rotationTrigger: args.rotationTrigger,
      connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
      adoptKeyId: args.adoptKeyId ?? importId,
    };
    const outputs = [
      "keyId", "version", "secret", "secretKnown", "hint", "ownerId", "baseUrl",
      "provisioningKeyHint", "createdAt", "updatedAt", "rotatedAt",
    ];
    for (const output of outputs) inputs[output] = undefined;
    // What pulumi.dynamic.Resource does, with a hand-written `__provider` (see ./provider-module.ts).
    inputs.__provider = PROVIDER_MODULE;
    const additionalSecretOutputs = [...(options.additionalSecretOutputs ?? []), "secret", "connection"];
    super(API_KEY_TYPE, name, inputs, { ...options, additionalSecretOutputs });
  }
}
