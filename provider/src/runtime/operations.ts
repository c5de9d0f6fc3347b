/**
 * What every resource type's provider shares: how it is built (its connections, owners, clock and
 * voice), and how an operation's failure leaves it (one clean message, printed once).
 */
import { Connections, defaultClientFactory, type ClientFactory, type ConfigNamespace, type Environment } from "./connection";
import type { ProviderContext } from "./context";
import {
  engineDiagnostics,
  inDynamicProviderPlugin,
  installPluginOutputFilter,
  reportOnce,
  silentDiagnostics,
  type Diagnostics,
} from "./diagnostics";
import { KeyOperationError } from "./errors";
import { unexpected } from "./messages";
import { Owners } from "./owner";
import type { Clock } from "./time";

/** What a provider depends on; each has a default for the plugin process. */
export interface ProviderOptions {
  /** Makes the SDK client for a gateway and provisioning key. Default: a `GatewayClient` with the configured time limit. */
  createClient?: ClientFactory;
  /** Where `GATEWAY_BASE_URL`, `GATEWAY_PROVISIONING_KEY` and `GATEWAY_REQUEST_TIMEOUT` are read, at each operation. Default `process.env`. */
  env?: Environment;
  /** Now, in milliseconds since the epoch: what `rotateAfter` is measured against. Default: system time (`Date.now`). */
  clock?: Clock;
  /** Where warnings go. Default: the engine, inside the plugin; nowhere elsewhere. */
  diagnostics?: Diagnostics;
  /** Which stack-config keys `configure` reads: `gateway:*` (default, the dynamic provider) or `gatewaykeys:*` (the native plugin). */
  configNamespace?: ConfigNamespace;
}

/** The context of one provider, built from its options. */
export function providerContext(options: ProviderOptions): ProviderContext {
  const connections = new Connections({
    env: options.env ?? process.env,
    createClient: options.createClient ?? defaultClientFactory,
    namespace: options.configNamespace,
  });
  return {
    connections,
    owners: new Owners(connections),
    now: options.clock ?? Date.now,
    diagnostics: options.diagnostics ?? silentDiagnostics,
  };
}

/** Runs one operation; whatever it throws leaves as one clean message (see reportOnce). */
export async function reported<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw reportOnce(error instanceof KeyOperationError ? error : unexpected(error));
  }
}

/** The options of a provider the dynamic-provider plugin loads: warnings through the engine, each error printed once. */
export function pluginOptions(): ProviderOptions {
  if (!inDynamicProviderPlugin()) return {};
  installPluginOutputFilter();
  const engineAddress = process.argv[2];
  return { diagnostics: engineAddress ? engineDiagnostics(engineAddress) : silentDiagnostics };
}
