/**
 * How the provider speaks to the person running Pulumi from inside the dynamic-provider plugin:
 * warnings through the engine (shown under the resource, like any provider's), and errors exactly
 * once. The plugin writes every error that check, diff, read or delete throws to stderr with its
 * stack, beside the engine's own report of the same message; the plugin's output filter below
 * drops that second copy for errors this provider raised.
 */

/**
 * Where warnings go. `urn` addresses the resource; without it the warning is the deployment's. The
 * promise settles once the warning is delivered (or could not be): a caller that returns to the
 * engine right after awaits it, or a short preview may end before the warning reaches the engine.
 */
export interface Diagnostics {
  warn(message: string, urn?: string): void | Promise<void>;
}

/** Warnings nobody reads: the default outside the plugin (tests inject their own). */
export const silentDiagnostics: Diagnostics = { warn: () => undefined };

/** Whether this process is Pulumi's Node dynamic-provider plugin. */
export function inDynamicProviderPlugin(argv: readonly string[] = process.argv): boolean {
  return /dynamic-provider(\/index\.js)?$/.test(argv[1] ?? "");
}

/**
 * Warnings through the engine's log service, whose address the engine passes the plugin as its
 * first argument: the same channel every provider's diagnostics take. Failing to deliver one
 * never fails an operation.
 */
export function engineDiagnostics(engineAddress: string): Diagnostics {
  let client: { log(request: unknown, done: (error: unknown) => void): void } | undefined;
  let proto: { LogRequest: new () => LogRequest; LogSeverity: { WARNING: number } } | undefined;
  return {
    warn(message, urn) {
      try {
        if (!client || !proto) {
          // Loaded from @pulumi/pulumi's own dependencies, as the plugin itself does.
          const pulumiEntry = require.resolve("@pulumi/pulumi");
          const grpc = require(require.resolve("@grpc/grpc-js", { paths: [pulumiEntry] }));
          const { EngineClient } = require(require.resolve("@pulumi/pulumi/proto/engine_grpc_pb", { paths: [pulumiEntry] }));
          proto = require(require.resolve("@pulumi/pulumi/proto/engine_pb", { paths: [pulumiEntry] }));
          client = new EngineClient(engineAddress, grpc.credentials.createInsecure());
        }
        const request = new proto!.LogRequest();
        request.setSeverity(proto!.LogSeverity.WARNING);
        request.setMessage(message);
        request.setUrn(urn ?? "");
        return new Promise<void>((delivered) => client!.log(request, () => delivered()));
      } catch {
        // A warning that cannot be delivered is not worth failing the deployment for.
      }
    },
  };
}

interface LogRequest {
  setSeverity(severity: number): void;
  setMessage(message: string): void;
  setUrn(urn: string): void;
}

/** Lines the plugin is about to print for errors this provider threw, each dropped once. */
const reported = new Set<string>();
let filterInstalled = false;

/**
 * Makes the plugin print `error` once: marks the line the plugin would add to stderr
 * (`${error}: ${error.stack}`) so the filter drops it. Returns the error, for `throw`.
 */
export function reportOnce(error: Error): Error {
  if (filterInstalled) reported.add(`${error}: ${error.stack}`);
  return error;
}

/** Installs the filter of {@link reportOnce} on `console.error`. For the plugin process only. */
export function installPluginOutputFilter(): void {
  if (filterInstalled) return;
  filterInstalled = true;
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    const [first] = args;
    if (args.length === 1 && typeof first === "string" && reported.delete(first)) return;
    original(...args);
  };
}
