import type * as pulumi from "@pulumi/pulumi";
import { canonicalJson, KEY_CHANGE_FIELDS } from "@gateway-keys/contract";
import type { ApiKeyProvider } from "../runtime";
import { PATCHABLE_FIELDS } from "../runtime/compare";
import { rotationPlanned } from "../runtime/rotation";
import { DERIVED_FIELDS, isSettled, SECRET_PROPERTIES, UNKNOWN, type CheckedInputs, type DesiredKey, type StoredKey } from "../runtime/shapes";
import type { NativeDiagnostics } from "./diagnostics";
import { detailedDiffOf, nameOfUrn, plannedState, readOrImport, type DetailedDiff, type ResourceHandler } from "./handler";
import { revealed, withSecretsMarked } from "./secrets";

/** Inputs compared property by property for the detailed diff. */
const COMPARED_INPUTS = [...PATCHABLE_FIELDS, "rotationTrigger", "rotateAfter", "rotationGracePeriod", "retireWhenIdle", "inUseWarning", "expiryWarning", "rotation", "connection", "adoptKeyId"] as const;

const marked = (properties: object) => withSecretsMarked(properties, SECRET_PROPERTIES);

/**
 * `gatewaykeys:index:ApiKey`: Pulumi's provider calls over the same runtime as the dynamic `ApiKey`
 * (one runtime, two front doors). What only a native provider can do is added here: the URN comes
 * from the engine (it names the key on the gateway, for crash-safe creates), the diff says what
 * changes per property (so `replaceOnChanges` works and a rotation shows as an update of `secret`),
 * the secret outputs are marked secret by the provider itself, and a read with no state
 * (`pulumi import`) works.
 */
export class ApiKeyHandler implements ResourceHandler {
  readonly #runtime: ApiKeyProvider;
  readonly #diagnostics: NativeDiagnostics;

  constructor(runtime: ApiKeyProvider, diagnostics: NativeDiagnostics) {
    this.#runtime = runtime;
    this.#diagnostics = diagnostics;
  }

  async check(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.CheckResult> {
    const program = revealed(news) as Record<string, unknown>;
    // The URN names the key on the gateway (crash-safe create) and addresses warnings: what the
    // dynamic ApiKey class passes as a hidden input, the engine hands a native provider itself.
    // `planning`, the hidden input by which the dynamic class says the engine previews, is passed
    // on: the TypeScript `native.ApiKey` sets it too, so a preview that rotates shows the secret as
    // unknown (an unknown input outside a preview would fail the update). Other SDKs leave it out.
    const declared: Record<string, unknown> = { ...program, name: program.name ?? nameOfUrn(urn), clientReference: urn };
    const { inputs, failures } = await this.#runtime.check((revealed(olds) as Record<string, unknown>) ?? {}, declared);
    return { inputs: marked(inputs), failures };
  }

  async diff(_urn: string, olds: unknown, news: unknown): Promise<DetailedDiff> {
    const stored = revealed(olds) as StoredKey;
    const desired = revealed(news) as CheckedInputs;
    const result = await this.#runtime.diff(stored.keyId, stored, desired);
    const replaces = result.replaces ?? [];
    const detailedDiff = detailedDiffOf(stored, desired, COMPARED_INPUTS, replaces);
    // A rotation is an in-place update of the secret; the change of rotationTrigger or of the
    // `rotation` record (whose reason names why) shows beside it.
    // Shown only when check could mark the secret unknown (a preview of a program that says it is
    // one): the plan compares the old secret with the new inputs' and would otherwise show a removal.
    const { secret: shown, ...declared } = desired as Record<string, unknown>;
    if (shown === UNKNOWN && isSettled(declared) && rotationPlanned(stored, declared as DesiredKey)) detailedDiff.secret = "update";
    if (result.changes && Object.keys(detailedDiff).length === 0) detailedDiff.provisioningKeyHint = "update";
    // A replacement revokes the old key before creating the new one: created first, the new key
    // would meet the old one under the same client reference (the URN) and take it over, and the
    // delete that follows would revoke it. Said for every replacement, `replaceOnChanges` ones too.
    return { changes: result.changes, replaces, deleteBeforeReplace: true, detailedDiff };
  }

  async create(urn: string, inputs: unknown): Promise<pulumi.provider.CreateResult> {
    const desired = { ...(revealed(inputs) as DesiredKey), clientReference: urn };
    const { id, outs } = await this.#runtime.create(desired);
    return { id, outs: marked(outs ?? {}) };
  }

  /** Refresh, and `pulumi import`: see {@link readOrImport}. */
  read(id: string, urn: string, props?: unknown): Promise<pulumi.provider.ReadResult> {
    return readOrImport<StoredKey>(
      {
        idField: "keyId",
        read: (keyId, stored) => this.#runtime.read(keyId, stored),
        marked,
        diagnostics: this.#diagnostics,
        importWarning: (keyId) =>
          `imported key ${keyId}: its secret is unknown to the stack (secret absent, secretKnown false); ` +
          "change rotationTrigger in a later update to issue one the stack manages.",
        declaration: importDeclaration,
      },
      id,
      urn,
      props,
    );
  }

  async update(_urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.UpdateResult> {
    const stored = revealed(olds) as StoredKey;
    const { outs } = await this.#runtime.update(stored.keyId, stored, revealed(news) as DesiredKey);
    return { outs: marked(outs ?? {}) };
  }

  /**
   * What an update will leave, for a preview (the engine asks with `preview`, since the plugin says
   * it supports previews): the declared name, state and policies, and, when a rotation is planned,
   * a secret not known until the update. No gateway call.
   */
  planUpdate(_urn: string, olds: unknown, news: unknown): Record<string, unknown> {
    const stored = revealed(olds) as StoredKey;
    const desired = revealed(news) as DesiredKey;
    const planned = plannedState(stored, desired, COMPARED_INPUTS);
    if (isSettled(desired) && rotationPlanned(stored, desired)) planned.secret = UNKNOWN;
    return marked(planned);
  }

  async delete(_urn: string, props: unknown): Promise<void> {
    const stored = revealed(props) as StoredKey;
    await this.#runtime.delete(stored.keyId, stored);
  }
}

/** The TypeScript declaration of an imported key, with the inputs its live state implies. */
export function importDeclaration(name: string, inputs: object): string {
  const declared = inputs as Record<string, unknown>;
  const body = [...KEY_CHANGE_FIELDS.filter((field) => !(DERIVED_FIELDS as readonly string[]).includes(field)), "expiryWarning" as const]
    .map((field) => [field, declared[field]] as const)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => `  ${field}: ${canonicalJson(value)},`)
    .join("\n");
  return `new native.ApiKey(${JSON.stringify(name)}, {\n${body}\n});`;
}
