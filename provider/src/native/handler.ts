import type * as pulumi from "@pulumi/pulumi";
import { sameJson } from "../runtime/compare";
import type { NativeDiagnostics } from "./diagnostics";
import { revealed } from "./secrets";

/** How a property changes, as the engine's detailed diff names it (`pulumirpc.PropertyDiff.Kind`). */
export type PropertyChange = "add" | "delete" | "update" | "add-replace" | "delete-replace" | "update-replace";

/** A diff with what changes per property: what lets `replaceOnChanges` work and a plan name a rotation. */
export interface DetailedDiff extends pulumi.provider.DiffResult {
  detailedDiff: Record<string, PropertyChange>;
}

/**
 * One resource type of the native plugin: Pulumi's provider calls for it, over the shared runtime.
 * The plugin's provider picks the handler by the type in the URN, so each type keeps its own file.
 */
export interface ResourceHandler {
  check(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.CheckResult>;
  diff(urn: string, olds: unknown, news: unknown): Promise<DetailedDiff>;
  create(urn: string, inputs: unknown): Promise<pulumi.provider.CreateResult>;
  /** Refresh, and `pulumi import` (no state yet: `props` is undefined). */
  read(id: string, urn: string, props?: unknown): Promise<pulumi.provider.ReadResult>;
  update(urn: string, olds: unknown, news: unknown): Promise<pulumi.provider.UpdateResult>;
  /** What an update will leave, for a preview: no gateway call. */
  planUpdate(urn: string, olds: unknown, news: unknown): Record<string, unknown>;
  delete(urn: string, props: unknown): Promise<void>;
}

/** The resource's name: the last part of its URN. */
export const nameOfUrn = (urn: string): string => urn.split("::").pop() ?? urn;

/** The type token in a URN (`gatewaykeys:index:ApiKey`), the parent types before `$` left out. */
export const typeOfUrn = (urn: string): string | undefined => urn.split("::")[2]?.split("$").pop();

/**
 * The detailed diff of `fields`: each input whose stored and declared values differ (JSON, key order
 * aside), as an addition, removal or update, and a replacement when `replaces` names it.
 */
export function detailedDiffOf(
  stored: object,
  desired: object,
  fields: readonly string[],
  replaces: readonly string[],
): Record<string, PropertyChange> {
  const detailed: Record<string, PropertyChange> = {};
  for (const field of fields) {
    const before = (stored as Record<string, unknown>)[field];
    const after = (desired as Record<string, unknown>)[field];
    if (sameJson(before, after)) continue;
    const kind: PropertyChange = before === undefined ? "add" : after === undefined ? "delete" : "update";
    detailed[field] = replaces.includes(field) ? `${kind}-replace` : kind;
  }
  return detailed;
}

/** `stored` with the declared values of `fields` in place (those declared as none removed): what an update leaves. */
export function plannedState(stored: object, desired: object, fields: readonly string[]): Record<string, unknown> {
  const planned: Record<string, unknown> = { ...stored };
  for (const field of fields) planned[field] = (desired as Record<string, unknown>)[field];
  for (const field of Object.keys(planned)) if (planned[field] === undefined) delete planned[field];
  return planned;
}

/** What a resource type's read needs to tell an import from a refresh, and to say what an import gives. */
export interface ReadSpec<Stored> {
  /** The output that holds the resource's id: absent in the state of an import. */
  idField: keyof Stored;
  /** The runtime's read: nothing when the resource is gone. */
  read(id: string, stored: Stored | undefined): Promise<{ id?: string; props?: object; inputs?: Record<string, unknown> }>;
  /** Marks the secret properties of outputs and inputs. */
  marked(properties: object): Record<string, unknown>;
  diagnostics: NativeDiagnostics;
  /** The warning of an import: which secret the stack does not hold, and how to get one; none for a resource without a secret. */
  importWarning: ((id: string) => string) | undefined;
  /** The program's declaration of the imported resource (the Node language host here cannot generate it: `--generate-code=false`). */
  declaration(name: string, inputs: Record<string, unknown>): string;
}

/**
 * Refresh, and `pulumi import` (no state yet: `props` is undefined). An imported resource's secret
 * is unknown to the stack, which the person importing is told, with the declaration to paste.
 */
export async function readOrImport<Stored extends object>(
  spec: ReadSpec<Stored>,
  id: string,
  urn: string,
  props: unknown,
): Promise<pulumi.provider.ReadResult> {
  const stored = props === undefined ? undefined : (revealed(props) as Stored);
  const importing = stored === undefined || stored[spec.idField] === undefined;
  const { id: liveId, props: live, inputs } = await spec.read(id, importing ? undefined : stored);
  if (!live || !inputs) return {};
  if (importing) {
    if (spec.importWarning) spec.diagnostics.warn(spec.importWarning(id), urn);
    spec.diagnostics.info(`declare the imported resource in the program:\n${spec.declaration(nameOfUrn(urn), inputs)}`, urn);
  }
  return { id: liveId, props: spec.marked(live), inputs: spec.marked(inputs) };
}
