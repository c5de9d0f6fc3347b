/**
 * The dynamic-provider plugin finds a resource's implementation in its `__provider` property: the
 * text of a CommonJS module whose `handler()` returns the provider object. `pulumi.dynamic.Resource`
 * writes that text by serializing a closure, which for our seven forwarding methods is about 2 KB,
 * stored twice (inputs and outputs) in every key's state. We write the module by hand instead: one
 * line that loads the implementation by package name inside the plugin process (which resolves
 * modules from the program's folder). It holds no credential, and it does not change when the
 * implementation does, so upgrading the package never shows every key as changed.
 */
export const PROVIDER_MODULE = 'exports.handler = () => require("@gateway-keys/provider/runtime").apiKeyProvider;\n';

/** The type token of ApiKey: the dynamic-provider plugin's package, our module and type. */
export const API_KEY_TYPE = "pulumi-nodejs:dynamic/gateway:ApiKey";
