import type * as pulumi from "@pulumi/pulumi";

/**
 * The provider object Pulumi serializes into every ApiKey's state as `__provider`. Each method only
 * loads the real implementation by package name inside the plugin process (which resolves modules
 * from the program's folder) and forwards the call, so the serialized text stays tiny, holds no
 * credential, and does not change when the implementation does — a changed `__provider` would make
 * the engine see every key as changed.
 */
export const serializedProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.configure(request),
  check: (olds, news) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.check(olds, news),
  diff: (id, olds, news) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.diff(id, olds, news),
  create: (inputs) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.create(inputs),
  read: (id, props) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.read(id, props),
  update: (id, olds, news) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.update(id, olds, news),
  delete: (id, props) => require("@gateway-keys/provider/dist/runtime").apiKeyProvider.delete(id, props),
};
