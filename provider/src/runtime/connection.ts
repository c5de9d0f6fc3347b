import { hintOf } from "@gateway-keys/contract";
import { GatewayClient } from "@gateway-keys/sdk";
import { baseUrlProblem, provisioningKeyProblem } from "./check";
import { KeyOperationError } from "./messages";
import type { ConnectionInput, StoredKey } from "./shapes";

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
 * The connection a program declares for a key: its `connection` input, else stack config, else the
 * environment, each field on its own, so a program may set only the provisioning key per key.
 */
export function resolveConnection(connection: ConnectionInput | undefined): Partial<Connection> {
  return {
    baseUrl: connection?.baseUrl ?? stackConfig.baseUrl ?? process.env.GATEWAY_BASE_URL,
    provisioningKey: connection?.provisioningKey ?? stackConfig.provisioningKey ?? process.env.GATEWAY_PROVISIONING_KEY,
  };
}

/**
 * What is wrong with a resolved connection, as a message that says how to fix it; undefined when it
 * is usable. Values are never echoed: a provisioning key may sit in the wrong place.
 */
export function connectionProblem(connection: Partial<Connection>): string | undefined {
  if (!connection.baseUrl) {
    return "no gateway configured: run `pulumi config set gateway:baseUrl <url>`, set GATEWAY_BASE_URL, or give the key a `connection.baseUrl`";
  }
  if (!connection.provisioningKey) {
    return "no provisioning key configured: run `pulumi config set --secret gateway:provisioningKey <key>`, set GATEWAY_PROVISIONING_KEY, or give the key a secret `connection.provisioningKey`";
  }
  const url = baseUrlProblem(connection.baseUrl);
  if (url) return `the configured gateway URL ${url}`;
  const key = provisioningKeyProblem(connection.provisioningKey);
  if (key) return `the configured provisioning key is not one: ${key}`;
  return undefined;
}

/** A usable connection, or an error saying what to configure. */
function requireUsable(connection: Partial<Connection>): Connection {
  const problem = connectionProblem(connection);
  if (problem) throw new KeyOperationError(problem);
  return connection as Connection;
}

/** The connection a program declares for a key, usable. */
export function requireConnection(connection: ConnectionInput | undefined): Connection {
  return requireUsable(resolveConnection(connection));
}

/**
 * The connection of a key that exists: the gateway it lives on, and the provisioning key of its own
 * `connection` input, else the one configured now.
 */
export function existingConnection(stored: Partial<StoredKey> | undefined): Connection {
  const configured = resolveConnection(stored?.connection);
  return requireUsable({ ...configured, baseUrl: stored?.connection?.baseUrl ?? stored?.baseUrl ?? configured.baseUrl });
}

/** The provisioning key's public hint: which credential a key was last managed with. */
export function credentialHint(connection: Connection): string {
  return hintOf(connection.provisioningKey);
}

/** Whether two gateway URLs name the same gateway (a trailing slash aside). */
export function sameGateway(a: string, b: string): boolean {
  const normal = (url: string) => new URL(url).href.replace(/\/+$/, "");
  return normal(a) === normal(b);
}

/**
 * Per attempt. The SDK retries twice more (with the same idempotency key), so a dead gateway fails
 * an operation in about a minute and a half rather than holding `pulumi up` for minutes.
 */
const TIMEOUT_MS = 30_000;
const clients = new Map<string, GatewayClient>();

/** One SDK client per gateway and provisioning key for the life of the plugin process. */
export function clientFor(connection: Connection): GatewayClient {
  const id = `${connection.baseUrl}\n${connection.provisioningKey}`;
  let client = clients.get(id);
  if (!client) {
    client = new GatewayClient({ baseUrl: connection.baseUrl, provisioningKey: connection.provisioningKey, timeoutMs: TIMEOUT_MS });
    clients.set(id, client);
  }
  return client;
}

/** Closes every client's connections (the plugin process simply exits; tests call this). */
export async function closeClients(): Promise<void> {
  const open = [...clients.values()];
  clients.clear();
  await Promise.all(open.map((client) => client.close()));
}
