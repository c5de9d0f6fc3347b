import * as pulumi from "@pulumi/pulumi";
import { ApiKeyResource, sharedInputs } from "./api-key-base";
import { SECRET_PROPERTIES } from "./runtime/shapes";
import type { ApiKeyArgs } from "./inputs";
import { API_KEY_TYPE, PROVIDER_MODULE, urnOf } from "./provider-module";

/**
 * A regular API key of the gateway, managed as code. It is a Pulumi dynamic resource: the engine
 * runs its provider (./runtime) in the Node dynamic-provider plugin.
 *
 * - Create issues the key; its one-time `secret` is an encrypted Pulumi secret output. A create is
 *   safe to repeat after any crash: the key carries the resource's URN as its client reference, so
 *   the next `pulumi up` finds the key an interrupted run made instead of making a second one.
 * - Changing `name`, `state` or a policy is an in-place update (one PATCH).
 * - Changing `rotationTrigger`, or reaching `rotateAfter`, rotates the secret in place: the `keyId`
 *   stays; the old secret stops working at once, or after `rotationGracePeriod`.
 * - Delete revokes the key, irreversibly. A replacement (another gateway or owner, or
 *   `pulumi up --replace`) revokes the old key first, then creates the new one.
 * - Every change sends the version in state as `expectedVersion`: a key changed outside the stack
 *   fails the update (run `pulumi refresh`, review, `pulumi up`) and is never overwritten.
 * - Adopt an existing key with the `import` resource option, `new ApiKey("ci", args, { import: "key_..." })`,
 *   or the `adoptKeyId` input. Its secret is unknown (`secretKnown: false`) until the stack rotates it.
 *
 * @example
 * const ci = new ApiKey("ci", {
 *   spendPolicy: { limitUnits: "100" },
 *   rotateAfter: "30d",
 *   rotationGracePeriod: "1h",
 * });
 * export const ciSecret = ci.secret;
 */
export class ApiKey extends ApiKeyResource {
  constructor(name: string, args: ApiKeyArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    // The engine's own import cannot reach a dynamic provider (its read gets no `__provider`;
    // pulumi/pulumi#16175), so the `import` option becomes an adoption the provider performs in
    // `create`: it checks the live key matches the program and takes it over, creating nothing.
    const { import: importId, ...options } = opts;
    const inputs: Record<string, unknown> = {
      ...sharedInputs(args),
      name: args.name ?? name,
      adoptKeyId: args.adoptKeyId ?? importId,
      // The provider never sees the URN; it names the key on the gateway, so a create that a crash
      // interrupted is found again by the next run, and it addresses the provider's warnings.
      clientReference: urnOf(name, API_KEY_TYPE, options.parent),
    };
    // What pulumi.dynamic.Resource does, with a hand-written `__provider` (see ./provider-module.ts).
    inputs.__provider = PROVIDER_MODULE;
    const additionalSecretOutputs = [...(options.additionalSecretOutputs ?? []), ...SECRET_PROPERTIES];
    // A replacement revokes the old key before creating the new one. Created first, the new key
    // would meet the old one, still live under the same client reference, and a create cannot tell
    // that key from one a crashed run left behind (the engine tells the provider nothing of a forced
    // `--replace`): it would take the old key over, and the delete that follows would revoke it.
    super(API_KEY_TYPE, name, inputs, { ...options, additionalSecretOutputs, deleteBeforeReplace: true });
  }
}
