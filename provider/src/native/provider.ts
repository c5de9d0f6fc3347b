import type * as pulumi from "@pulumi/pulumi";
import { createApiKeyProvider, createTeamProvider, createWebhookProvider, type ApiKeyProviderOptions } from "../runtime";
import type { ConfigSource } from "../runtime/connection";
import { ApiKeyHandler } from "./api-key-handler";
import type { NativeDiagnostics } from "./diagnostics";
import { typeOfUrn, type DetailedDiff, type ResourceHandler } from "./handler";
import { NATIVE_API_KEY_TYPE, NATIVE_TEAM_TYPE, NATIVE_WEBHOOK_TYPE, packageSchemaJson } from "./schema";
import { TeamHandler } from "./team-handler";
import { WebhookHandler } from "./webhook-handler";

export type { DetailedDiff, PropertyChange } from "./handler";

/**
 * The native `gatewaykeys` provider: Pulumi's provider interface, each call handed to the handler
 * of the resource type its URN names (./api-key-handler.ts...). Configuration is the provider's:
 * every handler's runtime reads the same `gatewaykeys:*` settings.
 */
export class GatewayKeysProvider implements pulumi.provider.Provider {
  readonly version: string;
  readonly #handlers: ReadonlyMap<string, ResourceHandler>;
  readonly #configure: (config: ConfigSource) => void;

  constructor(options: { version: string; diagnostics: NativeDiagnostics } & Omit<ApiKeyProviderOptions, "diagnostics" | "configNamespace">) {
    this.version = options.version;
    const apiKeys = createApiKeyProvider({ ...options, configNamespace: "gatewaykeys" });
    const webhooks = createWebhookProvider({ ...options, configNamespace: "gatewaykeys" });
    const teams = createTeamProvider({ ...options, configNamespace: "gatewaykeys" });
    this.#handlers = new Map<string, ResourceHandler>([
      [NATIVE_API_KEY_TYPE, new ApiKeyHandler(apiKeys, options.diagnostics)],
      [NATIVE_WEBHOOK_TYPE, new WebhookHandler(webhooks, options.diagnostics)],
      [NATIVE_TEAM_TYPE, new TeamHandler(teams, options.diagnostics)],
    ]);
    this.#configure = (config) => {
      const source = { config: { get: (key: string) => config.get(key), require: (key: string) => config.get(key) ?? "" } };
      void apiKeys.configure(source);
      void webhooks.configure(source);
      void teams.configure(source);
    };
  }

  async getSchema(): Promise<string> {
    return packageSchemaJson(this.version);
  }

  /** Remembers the provider configuration (`gatewaykeys:baseUrl`, `gatewaykeys:provisioningKey`, `gatewaykeys:requestTimeout`). */
  configure(config: ConfigSource): void {
    this.#configure(config);
  }

  check(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.CheckResult> {
    return this.#handler(urn).check(urn, olds, news);
  }

  diff(_id: string, urn: string, olds: unknown, news: unknown): Promise<DetailedDiff> {
    return this.#handler(urn).diff(urn, olds, news);
  }

  create(urn: string, inputs: unknown): Promise<pulumi.provider.CreateResult> {
    return this.#handler(urn).create(urn, inputs);
  }

  read(id: string, urn: string, props?: unknown): Promise<pulumi.provider.ReadResult> {
    return this.#handler(urn).read(id, urn, props);
  }

  update(_id: string, urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.UpdateResult> {
    return this.#handler(urn).update(urn, olds, news);
  }

  /** What an update will leave, for a preview (see server.ts): no gateway call. */
  planUpdate(urn: string, olds: unknown, news: unknown): Record<string, unknown> {
    return this.#handler(urn).planUpdate(urn, olds, news);
  }

  delete(_id: string, urn: string, props: unknown): Promise<void> {
    return this.#handler(urn).delete(urn, props);
  }

  #handler(urn: string): ResourceHandler {
    const type = typeOfUrn(urn);
    const handler = type === undefined ? undefined : this.#handlers.get(type);
    if (!handler) throw new Error(`the gatewaykeys provider has no resource type ${type}; it has ${[...this.#handlers.keys()].join(", ")}`);
    return handler;
  }
}
