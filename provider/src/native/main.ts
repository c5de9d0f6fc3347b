/**
 * Entry point of the `pulumi-resource-gatewaykeys` plugin: the engine starts it with its own address
 * as an argument; it prints the port it serves on and answers the engine's gRPC calls.
 */
import { installPluginOutputFilter } from "../runtime/diagnostics";
import { engineLog } from "./diagnostics";
import { GatewayKeysProvider } from "./provider";
import { serve } from "./server";
import { PLUGIN_VERSION } from "./version";

/** The engine's address: the first argument that is not one of the flags the engine adds. */
function engineAddress(args: string[]): string | undefined {
  return args.filter((arg, i) => !arg.startsWith("-") && args[i - 1] !== "--tracing")[0];
}

const args = process.argv.slice(2);
// Each error the provider raises is printed once, by the engine, not again with its stack by the server.
installPluginOutputFilter();
void serve(new GatewayKeysProvider({ version: PLUGIN_VERSION, diagnostics: engineLog(engineAddress(args)) }), args);
