import { formatPath, hintOf, keyKindOf } from "@gateway-keys/contract";
import { GatewayClient } from "@gateway-keys/sdk";
import { z } from "zod";
import { KeyOperationError } from "./errors";

const URL_EXPECTED = "expected an http:// or https:// URL, e.g. http://127.0.0.1:8787";
const PROVISIONING_KEY_EXPECTED = "expected a provisioning key (gwp_ followed by 38 characters)";

/** A gateway's base URL: http(s), and no user name or password, since it is stored in plain text. */
export const GatewayUrl = z
  .url({ protocol: /^https?$/, error: URL_EXPECTED, abort: true })
  .refine((text) => {
    const url = new URL(text);
    return url.username === "" && url.password === "";
  }, { error: "must not contain a user name or password (the URL is stored in plain text)" });

/** A well-formed provisioning key. Its messages never quote the value: it may be a real secret in the wrong place. */
export const ProvisioningKey = z
  .string({ error: PROVISIONING_KEY_EXPECTED })
  .refine((text) => keyKindOf(text) === "provisioning", { error: PROVISIONING_KEY_EXPECTED });

/** The `connection` input: which gateway, and which owner's provisioning key; each left out falls back to config. */
export const ConnectionInput = z.strictObject(
  { baseUrl: GatewayUrl.optional(), provisioningKey: ProvisioningKey.optional() },
  { error: "expected an object with baseUrl and/or provisioningKey" },
);
export type ConnectionInput = z.output<typeof ConnectionInput>;

/** Stack config and environment variable of the time limit of one gateway call, retries included. */
export const TIMEOUT_SETTING = { config: "gateway:requestTimeout", env: "GATEWAY_REQUEST_TIMEOUT" } as const;
/** Default time limit of one gateway call, retries included, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
const TIMEOUT_EXPECTED = "expected a whole number of seconds from 1 to 300";

/** What to set when a value is missing, naming the config keys of `namespace` (see {@link ConfigNamespace}). */
function notConfigured(namespace: ConfigNamespace) {
  return {
    baseUrl:
      `no gateway configured: run \`pulumi config set ${namespace}:baseUrl <url>\`, set GATEWAY_BASE_URL, or give the key a \`connection.baseUrl\``,
    provisioningKey:
      `no provisioning key configured: run \`pulumi config set --secret ${namespace}:provisioningKey <key>\`, set ` +
      "GATEWAY_PROVISIONING_KEY, or give the key a secret `connection.provisioningKey`",
  } as const;
}

/**
 * The stack-config namespace of the provider's settings: `gateway` for the dynamic provider
 * (`gateway:baseUrl`), `gatewaykeys` for the native plugin, whose config keys Pulumi prefixes with
 * its package name (`gatewaykeys:baseUrl`).
 */
export type ConfigNamespace = "gateway" | "gatewaykeys";

/** The {@link Connection} schema whose messages name the config keys of `namespace`. */
function connectionSchema(namespace: ConfigNamespace) {
  const missing = notConfigured(namespace);
  return z
    .object({
    baseUrl: z.string({ error: missing.baseUrl }).pipe(GatewayUrl),
    provisioningKey: z.string({ error: missing.provisioningKey }).pipe(ProvisioningKey),
    /** How long one call may take, retries included (`gateway:requestTimeout`, default 30 s). */
    timeoutMs: z
      .string({ error: TIMEOUT_EXPECTED })
      .regex(/^\d{1,3}$/, { error: TIMEOUT_EXPECTED })
      .transform((seconds) => Number(seconds) * 1000)
      .refine((ms) => ms >= 1000 && ms <= 300_000, { error: TIMEOUT_EXPECTED }),
    })
    // Carried along so messages about this connection name the settings the user actually has.
    .transform((connection) => ({ ...connection, namespace: namespace as ConfigNamespace }));
}

/** The stack-config key of one provider setting in `namespace`: `gateway:baseUrl`, `gatewaykeys:requestTimeout`... */
export function settingKey(namespace: ConfigNamespace, setting: "baseUrl" | "provisioningKey" | "requestTimeout"): string {
  return `${namespace}:${setting}`;
}

/** A gateway and the provisioning key to use there, resolved from every source and usable. */
export const Connection = connectionSchema("gateway");
export type Connection = z.output<typeof Connection>;

/** A resolved connection, or what to configure. */
export type Resolution = { ok: true; connection: Connection } | { ok: false; problem: string };

/** Reads stack config; the dynamic-provider plugin hands one of these to `configure()`. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

/** Environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Makes the SDK client for one gateway and provisioning key. */
export type ClientFactory = (connection: Connection) => GatewayClient;

/**
 * The client the provider uses unless it is given another factory. Each attempt may take the whole
 * time limit; every call also carries a signal that ends it, retries and waits included, at the
 * limit (see {@link callOptions}), so an unresponsive gateway fails an operation in that time.
 */
export const defaultClientFactory: ClientFactory = (connection) =>
  new GatewayClient({ baseUrl: connection.baseUrl, provisioningKey: connection.provisioningKey, timeoutMs: connection.timeoutMs });

/** Options of one SDK call: ends it, retries included, at the connection's time limit. */
export function callOptions(connection: Connection): { signal: AbortSignal } {
  return { signal: AbortSignal.timeout(connection.timeoutMs) };
}

/**
 * Where each key's requests go: resolves a key's connection from its `connection` input, the stack
 * config and the environment, and keeps one SDK client per gateway and provisioning key.
 */
export class Connections {
  readonly #env: Environment;
  readonly #createClient: ClientFactory;
  readonly #clients = new Map<string, GatewayClient>();
  readonly #namespace: ConfigNamespace;
  readonly #schema: typeof Connection;
  /** Stack config seen by `configure()`; empty until the engine calls it. */
  #config: { baseUrl?: string | undefined; provisioningKey?: string | undefined; requestTimeout?: string | undefined } = {};

  constructor(options: { env: Environment; createClient: ClientFactory; namespace?: ConfigNamespace }) {
    this.#env = options.env;
    this.#createClient = options.createClient;
    this.#namespace = options.namespace ?? "gateway";
    this.#schema = this.#namespace === "gateway" ? Connection : connectionSchema(this.#namespace);
  }

  /** Remembers `baseUrl`, `provisioningKey` and `requestTimeout` of the namespace (`gateway:baseUrl`...) from stack config. */
  configure(config: ConfigSource): void {
    this.#config = {
      baseUrl: config.get(settingKey(this.#namespace, "baseUrl")),
      provisioningKey: config.get(settingKey(this.#namespace, "provisioningKey")),
      requestTimeout: config.get(this.#timeoutKey()),
    };
  }

  /** The config key of the time limit: `gateway:requestTimeout` or `gatewaykeys:requestTimeout`. */
  #timeoutKey(): string {
    return settingKey(this.#namespace, "requestTimeout");
  }

  /**
   * The connection a program declares for a key, validated: its `connection` input, else stack
   * config, else the environment, each field on its own, so a program may set only the provisioning
   * key per key. The one place a connection is checked; values are never echoed.
   */
  resolve(input: ConnectionInput | undefined): Resolution {
    const parsed = this.#schema.safeParse({
      baseUrl: firstSet(input?.baseUrl, this.#config.baseUrl, this.#env.GATEWAY_BASE_URL),
      provisioningKey: firstSet(input?.provisioningKey, this.#config.provisioningKey, this.#env.GATEWAY_PROVISIONING_KEY),
      timeoutMs: firstSet(this.#config.requestTimeout, this.#env[TIMEOUT_SETTING.env]) ?? String(DEFAULT_TIMEOUT_SECONDS),
    });
    if (parsed.success) return { ok: true, connection: parsed.data };
    // A value that is missing says how to set it; one that is set says what is wrong with it.
    const problems = parsed.error.issues.map(({ code, path, message }) => {
      if (path[0] === "timeoutMs") return `${this.#timeoutKey()} (or ${TIMEOUT_SETTING.env}): ${message}`;
      return code === "invalid_type" ? message : `the configured ${formatPath(path)}: ${message}`;
    });
    return { ok: false, problem: problems.join("; ") };
  }

  /** The connection a program declares for a key, usable, or an error saying what to configure. */
  require(input: ConnectionInput | undefined): Connection {
    const resolution = this.resolve(input);
    if (!resolution.ok) throw new KeyOperationError(resolution.problem);
    return resolution.connection;
  }

  /**
   * The connection of a key that exists: the gateway it lives on, and the provisioning key of its
   * own `connection` input, else the one configured now.
   */
  existing(stored: { readonly baseUrl: string; readonly connection?: ConnectionInput } | undefined): Connection {
    return this.require({ ...stored?.connection, baseUrl: stored?.connection?.baseUrl ?? stored?.baseUrl });
  }

  /** One SDK client per gateway and provisioning key for the life of this provider. */
  client(connection: Connection): GatewayClient {
    const id = `${connection.baseUrl}\n${connection.provisioningKey}`;
    let client = this.#clients.get(id);
    if (!client) {
      client = this.#createClient(connection);
      this.#clients.set(id, client);
    }
    return client;
  }

  /** Closes every client's connections (the plugin process simply exits; tests call this). */
  async close(): Promise<void> {
    const open = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(open.map((client) => client.close()));
  }
}

/** The first value that is set: an empty string counts as not set, as an empty environment variable. */
function firstSet(...values: Array<string | undefined>): string | undefined {
  return values.find((value) => value !== undefined && value !== "");
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
