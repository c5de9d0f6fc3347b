import type * as pulumi from "@pulumi/pulumi";
import { canonicalJson } from "@gateway-keys/contract";
import { UNKNOWN } from "../runtime/shapes";
import {
  signingSecretRotates,
  WEBHOOK_PATCHABLE_FIELDS,
  WEBHOOK_SECRET_PROPERTIES,
  type DesiredWebhook,
  type StoredWebhook,
  type WebhookProvider,
} from "../runtime/webhook";
import type { NativeDiagnostics } from "./diagnostics";
import { detailedDiffOf, plannedState, readOrImport, type DetailedDiff, type ResourceHandler } from "./handler";
import { revealed, withSecretsMarked } from "./secrets";

/** Inputs compared property by property for the detailed diff. */
const COMPARED_INPUTS = [...WEBHOOK_PATCHABLE_FIELDS, "rotationTrigger", "rotationOverlap", "connection"] as const;

const marked = (properties: object) => withSecretsMarked(properties, WEBHOOK_SECRET_PROPERTIES);

/**
 * `gatewaykeys:index:Webhook`: Pulumi's provider calls over the same runtime as the dynamic
 * `Webhook`. The URN comes from the engine (it names the create, for crash-safe creates), the diff
 * says what changes per property, and `pulumi import` reads an endpoint with no state.
 */
export class WebhookHandler implements ResourceHandler {
  readonly #runtime: WebhookProvider;
  readonly #diagnostics: NativeDiagnostics;

  constructor(runtime: WebhookProvider, diagnostics: NativeDiagnostics) {
    this.#runtime = runtime;
    this.#diagnostics = diagnostics;
  }

  async check(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.CheckResult> {
    const declared = { ...(revealed(news) as Record<string, unknown>), clientReference: urn };
    const { inputs, failures } = await this.#runtime.check((revealed(olds) as Record<string, unknown>) ?? {}, declared);
    return { inputs: marked(inputs), failures };
  }

  async diff(_urn: string, olds: unknown, news: unknown): Promise<DetailedDiff> {
    const stored = revealed(olds) as StoredWebhook;
    const desired = revealed(news) as Record<string, unknown>;
    const result = await this.#runtime.diff(stored.webhookId, stored, desired);
    const replaces = result.replaces ?? [];
    const detailedDiff = detailedDiffOf(stored, desired, COMPARED_INPUTS, replaces);
    if (result.changes && Object.keys(detailedDiff).length === 0) detailedDiff.provisioningKeyHint = "update";
    return { changes: result.changes, replaces, deleteBeforeReplace: false, detailedDiff };
  }

  async create(urn: string, inputs: unknown): Promise<pulumi.provider.CreateResult> {
    const { id, outs } = await this.#runtime.create({ ...(revealed(inputs) as DesiredWebhook), clientReference: urn });
    return { id, outs: marked(outs ?? {}) };
  }

  /**
   * Refresh, and `pulumi import` (see {@link readOrImport}). The gateway never shows an endpoint's
   * signing secret again, so an imported endpoint has none in the stack (`signingSecretKnown` false).
   */
  read(id: string, urn: string, props?: unknown): Promise<pulumi.provider.ReadResult> {
    return readOrImport<StoredWebhook>(
      {
        idField: "webhookId",
        read: (webhookId, stored) => this.#runtime.read(webhookId, stored),
        marked,
        diagnostics: this.#diagnostics,
        importWarning: (webhookId) =>
          `imported webhook ${webhookId}: its signing secret is unknown to the stack (signingSecret absent, signingSecretKnown false); ` +
          "change rotationTrigger in a later update to issue one the stack holds.",
        declaration: webhookDeclaration,
      },
      id,
      urn,
      props,
    );
  }

  async update(_urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.UpdateResult> {
    const stored = revealed(olds) as StoredWebhook;
    const { outs } = await this.#runtime.update(stored.webhookId, stored, revealed(news) as DesiredWebhook);
    return { outs: marked(outs ?? {}) };
  }

  /** What an update will leave, for a preview: the declared fields, and an unknown signing secret when it rotates. */
  planUpdate(_urn: string, olds: unknown, news: unknown): Record<string, unknown> {
    const stored = revealed(olds) as StoredWebhook;
    const desired = revealed(news) as DesiredWebhook;
    const planned = plannedState(stored, desired, COMPARED_INPUTS);
    if (signingSecretRotates(stored, desired)) planned.signingSecret = UNKNOWN;
    return marked(planned);
  }

  async delete(_urn: string, props: unknown): Promise<void> {
    const stored = revealed(props) as StoredWebhook;
    await this.#runtime.delete(stored.webhookId, stored);
  }
}

/** The TypeScript declaration of an imported endpoint, with the inputs its live state implies. */
export function webhookDeclaration(name: string, inputs: Record<string, unknown>): string {
  const body = WEBHOOK_PATCHABLE_FIELDS.filter((field) => inputs[field] !== undefined)
    .map((field) => `  ${field}: ${canonicalJson(inputs[field])},`)
    .join("\n");
  return `new native.Webhook(${JSON.stringify(name)}, {\n${body}\n});`;
}
