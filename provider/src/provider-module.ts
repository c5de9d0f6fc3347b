import * as pulumi from "@pulumi/pulumi";

/**
 * The dynamic-provider plugin finds a resource's implementation in its `__provider` property: the
 * text of a CommonJS module whose `handler()` returns the provider object. `pulumi.dynamic.Resource`
 * writes that text by serializing a closure, which for our seven forwarding methods is about 2 KB,
 * stored twice (inputs and outputs) in every key's state. We write the module by hand instead: one
 * line that loads the implementation by package name inside the plugin process (which resolves
 * modules from the program's folder). It holds no credential, and it does not change when the
 * implementation does, so upgrading the package never shows every key as changed.
 */
export const PROVIDER_MODULE = providerModule("apiKeyProvider");

/** The `__provider` module of Webhook: the same one line, naming the Webhook provider. */
export const WEBHOOK_PROVIDER_MODULE = providerModule("webhookProvider");

/** The `__provider` module of Team: the same one line, naming the Team provider. */
export const TEAM_PROVIDER_MODULE = providerModule("teamProvider");

function providerModule(exportName: "apiKeyProvider" | "webhookProvider" | "teamProvider"): string {
  return `exports.handler = () => require("@gateway-keys/provider/runtime").${exportName};\n`;
}

/** The type token of ApiKey: the dynamic-provider plugin's package, our module and type. */
export const API_KEY_TYPE = "pulumi-nodejs:dynamic/gateway:ApiKey";

/** The type token of Webhook. */
export const WEBHOOK_TYPE = "pulumi-nodejs:dynamic/gateway:Webhook";

/** The type token of Team. */
export const TEAM_TYPE = "pulumi-nodejs:dynamic/gateway:Team";

/**
 * The URN the engine gives a resource, as a plain value. `pulumi.createUrn` carries a dependency
 * on the parent, and a dependency on a component means waiting for all its children, this resource
 * among them: a resource inside a component would wait for itself.
 */
export function urnOf(name: string, type: string, parent: pulumi.Resource | undefined): pulumi.Output<string> {
  const urn = pulumi.createUrn(name, type, parent);
  return pulumi.output(new Promise<string>((resolve) => void urn.apply((value) => resolve(value))));
}
