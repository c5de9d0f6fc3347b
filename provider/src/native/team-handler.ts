import type * as pulumi from "@pulumi/pulumi";
import { canonicalJson } from "@gateway-keys/contract";
import { TEAM_PATCHABLE_FIELDS, TEAM_SECRET_PROPERTIES, type DesiredTeam, type StoredTeam, type TeamProvider } from "../runtime/team";
import type { NativeDiagnostics } from "./diagnostics";
import { detailedDiffOf, nameOfUrn, plannedState, readOrImport, type DetailedDiff, type ResourceHandler } from "./handler";
import { revealed, withSecretsMarked } from "./secrets";

/** Inputs compared property by property for the detailed diff. */
const COMPARED_INPUTS = [...TEAM_PATCHABLE_FIELDS, "connection"] as const;

const marked = (properties: object) => withSecretsMarked(properties, TEAM_SECRET_PROPERTIES);

/**
 * `gatewaykeys:index:Team`: Pulumi's provider calls over the same runtime as the dynamic `Team`.
 * The URN comes from the engine (it names the create, for crash-safe creates), the diff says what
 * changes per property (every change an update, never a replacement), and `pulumi import` reads a
 * team with no state.
 */
export class TeamHandler implements ResourceHandler {
  readonly #runtime: TeamProvider;
  readonly #diagnostics: NativeDiagnostics;

  constructor(runtime: TeamProvider, diagnostics: NativeDiagnostics) {
    this.#runtime = runtime;
    this.#diagnostics = diagnostics;
  }

  async check(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.CheckResult> {
    const program = revealed(news) as Record<string, unknown>;
    const declared = { ...program, name: program.name ?? nameOfUrn(urn), clientReference: urn };
    const { inputs, failures } = await this.#runtime.check((revealed(olds) as Record<string, unknown>) ?? {}, declared);
    return { inputs: marked(inputs), failures };
  }

  async diff(_urn: string, olds: unknown, news: unknown): Promise<DetailedDiff> {
    const stored = revealed(olds) as StoredTeam;
    const desired = revealed(news) as Record<string, unknown>;
    const result = await this.#runtime.diff(stored.teamId, stored, desired);
    const replaces = result.replaces ?? [];
    const detailedDiff = detailedDiffOf(stored, desired, COMPARED_INPUTS, replaces);
    if (result.changes && Object.keys(detailedDiff).length === 0) detailedDiff.provisioningKeyHint = "update";
    return { changes: result.changes, replaces, deleteBeforeReplace: false, detailedDiff };
  }

  async create(urn: string, inputs: unknown): Promise<pulumi.provider.CreateResult> {
    const { id, outs } = await this.#runtime.create({ ...(revealed(inputs) as DesiredTeam), clientReference: urn });
    return { id, outs: marked(outs ?? {}) };
  }

  /** Refresh, and `pulumi import` (see {@link readOrImport}): a team holds no secret, so an import loses nothing. */
  read(id: string, urn: string, props?: unknown): Promise<pulumi.provider.ReadResult> {
    return readOrImport<StoredTeam>(
      {
        idField: "teamId",
        read: (teamId, stored) => this.#runtime.read(teamId, stored),
        marked,
        diagnostics: this.#diagnostics,
        importWarning: undefined,
        declaration: teamDeclaration,
      },
      id,
      urn,
      props,
    );
  }

  async update(_urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.UpdateResult> {
    const stored = revealed(olds) as StoredTeam;
    const { outs } = await this.#runtime.update(stored.teamId, stored, revealed(news) as DesiredTeam);
    return { outs: marked(outs ?? {}) };
  }

  /** What an update will leave, for a preview: the declared fields. */
  planUpdate(_urn: string, olds: unknown, news: unknown): Record<string, unknown> {
    return marked(plannedState(revealed(olds) as StoredTeam, revealed(news) as DesiredTeam, COMPARED_INPUTS));
  }

  async delete(_urn: string, props: unknown): Promise<void> {
    const stored = revealed(props) as StoredTeam;
    await this.#runtime.delete(stored.teamId, stored);
  }
}

/** The TypeScript declaration of an imported team, with the inputs its live state implies. */
export function teamDeclaration(name: string, inputs: Record<string, unknown>): string {
  const body = TEAM_PATCHABLE_FIELDS.filter((field) => inputs[field] !== undefined)
    .map((field) => `  ${field}: ${canonicalJson(inputs[field])},`)
    .join("\n");
  return `new native.Team(${JSON.stringify(name)}, {\n${body}\n});`;
}
