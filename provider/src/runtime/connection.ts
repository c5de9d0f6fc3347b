import { GatewayClient } from "@gateway-keys/sdk";
import { hintOf } from "@gateway-keys/contract";
import type { DesiredKey } from "./desired";

/** A gateway and the provisioning key to use there. */
export interface Connection {
  baseUrl: string;
  provisioningKey: string;
}

/** Reads stack config; the dynamic-provider plugin hands one of these to `configure()`. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

/** Stack config seen by `configure()`; empty until the engine calls it. */
let stackConfig: Partial<Connection> = {};

/** Remembers `gateway:baseUrl` and `gateway:provisioningKey` from stack config for this process. */
export function configure(config: ConfigSource): void {
  stackConfig = { baseUrl: config.get("gateway:baseUrl"), provisioningKey: config.get("gateway:provisioningKey") };
}

/**
 * The connection for one key: its `connection` input, else stack config, else the environment.
 * Each field falls back on its own, so a program may set only the provisioning key per key.
 */
export function resolveConnection(connection: DesiredKey["connection"]): Partial<Connection> {
  return {
    baseUrl: connection?.baseUrl ?? stackConfig.baseUrl ?? process.env.GATEWAY_BASE_URL,
    provisioningKey: connection?.provisioningKey ?? stackConfig.provisioningKey ?? process.env.GATEWAY_PROVISIONING_KEY,
  };
}

/**
 * The connection of a key that already exists: the gateway it was created on, and the provisioning
 * key it was managed with (its `connection` input, else the one configured now).
 */
export function existingConnection(stored: { baseUrl?: string; connection?: DesiredKey["connection"] } | undefined): Connection {
  const configured = resolveConnection(stored?.connection);
  return requireComplete({ ...configured, baseUrl: stored?.connection?.baseUrl ?? stored?.baseUrl ?? configured.baseUrl });
}

/** What is missing from a connection, as a message that says how to provide it; undefined when complete. */
export function missingConnection(connection: Partial<Connection>): string | undefined {
  if (!connection.baseUrl) {
    return "no gateway configured: run `pulumi config set gateway:baseUrl <url>`, set GATEWAY_BASE_URL, or give the key a `connection.baseUrl`";
  }
  if (!connection.provisioningKey) {
    return "no provisioning key configured: run `pulumi config set --secret gateway:provisioningKey <key>`, set GATEWAY_PROVISIONING_KEY, or give the key a secret `connection.provisioningKey`";
  }
  return undefined;
}

/** A complete connection, or an error saying what to configure. */
export function requireConnection(connection: DesiredKey["connection"]): Connection {
  return requireComplete(resolveConnection(connection));
}

function requireComplete(connection: Partial<Connection>): Connection {
  const missing = missingConnection(connection);
  if (missing) throw new Error(missing);
  return connection as Connection;
}

/** The provisioning key's public hint: which credential a key was last managed with. */
export function credentialHint(connection: Connection): string {
  return hintOf(connection.provisioningKey);
}

const clients = new Map<string, GatewayClient>();

/** One SDK client per gateway and provisioning key for the life of the plugin process. */
export function clientFor(connection: Connection): GatewayClient {
  const id = `${connection.baseUrl}\n${connection.provisioningKey}`;
  let client = clients.get(id);
  if (!client) {
    client = new GatewayClient({ baseUrl: connection.baseUrl, provisioningKey: connection.provisioningKey });
    clients.set(id, client);
  }
  return client;
}
