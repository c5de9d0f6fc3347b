import * as pulumi from "@pulumi/pulumi";
import { ApiKeyResource, sharedInputs } from "../api-key-base";
import { SECRET_PROPERTIES } from "../runtime/shapes";
import type { ApiKeyArgs, TeamArgs, WebhookArgs } from "../inputs";
import { TEAM_SECRET_PROPERTIES } from "../runtime/team/shapes";
import { TeamResource, teamInputs } from "../team-base";
import { WEBHOOK_SECRET_PROPERTIES } from "../runtime/webhook/shapes";
import { WebhookResource, webhookInputs } from "../webhook-base";
import { NATIVE_API_KEY_TYPE, NATIVE_TEAM_TYPE, NATIVE_WEBHOOK_TYPE, PACKAGE_NAME } from "./schema";
import { PLUGIN_VERSION } from "./version";

/**
 * A regular API key of the gateway, managed by the native `gatewaykeys` plugin
 * (`pulumi-resource-gatewaykeys`, resource type `gatewaykeys:index:ApiKey`): the same behaviour as
 * the dynamic {@link import("../api-key").ApiKey}, plus what only a native provider can do —
 * `pulumi import gatewaykeys:index:ApiKey <name> <keyId>`, `replaceOnChanges`, and a plan that
 * shows a rotation as an update of `secret`. Needs the plugin installed
 * (`pulumi plugin install resource gatewaykeys <version> --file <archive>`). The `import` resource
 * option is Pulumi's own import here.
 *
 * @example
 * import { native } from "@gateway-keys/provider";
 * const ci = new native.ApiKey("ci", { spendPolicy: { limitUnits: "100" } }, { replaceOnChanges: ["modelPolicy"] });
 * export const ciSecret = ci.secret;
 */
export class ApiKey extends ApiKeyResource {
  /** The resource's URN, which the key carries on the gateway. */
  declare readonly clientReference: pulumi.Output<string | undefined>;

  constructor(name: string, args: ApiKeyArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    // The engine gives a native provider the URN itself: `clientReference` is an output here.
    const inputs: Record<string, unknown> = { ...sharedInputs(args), name: args.name, adoptKeyId: args.adoptKeyId, clientReference: undefined };
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...SECRET_PROPERTIES];
    super(NATIVE_API_KEY_TYPE, name, inputs, { version: PLUGIN_VERSION, ...opts, additionalSecretOutputs });
  }
}

/**
 * A webhook endpoint of the gateway, managed by the native `gatewaykeys` plugin (resource type
 * `gatewaykeys:index:Webhook`): the same behaviour as the dynamic {@link import("../webhook").Webhook},
 * with Pulumi's own `pulumi import gatewaykeys:index:Webhook <name> <webhookId>` (the signing secret
 * is then unknown to the stack until `rotationTrigger` rotates it).
 *
 * @example
 * import { native } from "@gateway-keys/provider";
 * const alerts = new native.Webhook("alerts", { url: "https://hooks.example.com/gateway", events: ["key.rotation_due"] });
 * export const signingSecret = alerts.signingSecret;
 */
export class Webhook extends WebhookResource {
  /** The resource's URN, which names the create across runs. */
  declare readonly clientReference: pulumi.Output<string | undefined>;

  constructor(name: string, args: WebhookArgs, opts: pulumi.CustomResourceOptions = {}) {
    const inputs: Record<string, unknown> = { ...webhookInputs(args), clientReference: undefined };
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...WEBHOOK_SECRET_PROPERTIES];
    super(NATIVE_WEBHOOK_TYPE, name, inputs, { version: PLUGIN_VERSION, ...opts, additionalSecretOutputs });
  }
}

/**
 * A team of the gateway, managed by the native `gatewaykeys` plugin (resource type
 * `gatewaykeys:index:Team`): the same behaviour as the dynamic {@link import("../team").Team}, with
 * Pulumi's own `pulumi import gatewaykeys:index:Team <name> <teamId>`.
 *
 * @example
 * import { native } from "@gateway-keys/provider";
 * const search = new native.Team("search", { spendPolicy: { limitUnits: "1000", resetPeriod: "monthly" } });
 * new native.ApiKey("search-api", { teamId: search.teamId });
 */
export class Team extends TeamResource {
  /** The resource's URN, which names the create across runs. */
  declare readonly clientReference: pulumi.Output<string | undefined>;

  constructor(name: string, args: TeamArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    const inputs: Record<string, unknown> = { ...teamInputs(args), name: args.name, clientReference: undefined };
    const additionalSecretOutputs = [...(opts.additionalSecretOutputs ?? []), ...TEAM_SECRET_PROPERTIES];
    super(NATIVE_TEAM_TYPE, name, inputs, { version: PLUGIN_VERSION, ...opts, additionalSecretOutputs });
  }
}

/** Configuration of an explicit {@link Provider}; each left out falls back to the environment. */
export interface ProviderArgs {
  /** Base URL of the gateway; else `GATEWAY_BASE_URL`. */
  baseUrl?: pulumi.Input<string>;
  /** Provisioning key of the owner (`gwp_...`), stored as a secret; else `GATEWAY_PROVISIONING_KEY`. */
  provisioningKey?: pulumi.Input<string>;
  /** Time limit of one gateway call in seconds (1 to 300); else `GATEWAY_REQUEST_TIMEOUT`, default 30. */
  requestTimeout?: pulumi.Input<number>;
}

/**
 * An explicit `gatewaykeys` provider: another gateway or owner than the stack config
 * (`gatewaykeys:baseUrl`, `gatewaykeys:provisioningKey`) names. Pass it as `{ provider }`.
 */
export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    const inputs = {
      baseUrl: args.baseUrl,
      provisioningKey: args.provisioningKey === undefined ? undefined : pulumi.secret(args.provisioningKey),
      requestTimeout: args.requestTimeout,
    };
    super(PACKAGE_NAME, name, inputs, { version: PLUGIN_VERSION, ...opts });
  }
}
