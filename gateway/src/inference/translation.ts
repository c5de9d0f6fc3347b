import type { z } from "zod";
import { describeIssues, fieldIssues, formatPath, specificIssues } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import { paramOf } from "../http/validation";

/** What becomes of a field a target cannot carry: refused by name (the default), or dropped and named (a model's `unsupportedFields: drop`). */
export type UnsupportedFields = "refuse" | "drop";

/**
 * Who a translated request is for, in words a client can act on: a built-in model, or a provider
 * of another wire. Every refusal of a translation names it, so the client knows the field is fine
 * on its own wire and cannot be carried where this model is served.
 */
export interface TranslationTarget {
  /** e.g. `the built-in model "echo-1"`, `the Anthropic Messages wire of model "smart"`. */
  readonly description: string;
  /** Whether the target has a setting for an image's `detail`; where it has none, a detail is a hint: dropped and named. */
  readonly imageDetail: boolean;
  readonly unsupportedFields: UnsupportedFields;
}

export const builtInTarget = (modelId: string): TranslationTarget => ({
  description: `the built-in model ${JSON.stringify(modelId)}`,
  imageDetail: true,
  unsupportedFields: "refuse",
});

export const providerTarget = (wireName: string, modelId: string, options: { imageDetail: boolean; unsupportedFields: UnsupportedFields }): TranslationTarget => ({
  description: `the ${wireName} wire that model ${JSON.stringify(modelId)} is served on`,
  ...options,
});

/**
 * What a field a translation has no counterpart for means
 * (docs/operators/upstream.md#translation-by-meaning). Fields a translation carries or translates
 * are in the wire's translatable schema; a field neither there nor here asks for something the
 * target cannot give (lossy).
 * - `inert`: asks for nothing here (an empty list, a default, a name the call id already gives):
 *   passes without a word.
 * - `hint`: the answer means the same without it (an image's detail, a cache marker): dropped,
 *   and named to the client in the `x-gateway-dropped-fields` header.
 */
export interface FieldMeaning {
  /** The field's path in the request; `*` stands for any index or key. */
  path: readonly string[];
  meaning: "inert" | "hint";
  /** When given, the meaning holds only for these values (`include: []` is inert, `include: ["…"]` is not). */
  when?: (value: unknown, holder: Record<string, unknown>) => boolean;
}

/** Always true of an empty list, an empty object, null or absent. */
export const isEmpty = (value: unknown): boolean =>
  value == null || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

/** A request read in its wire's translatable form, and the client's fields that were not carried (named to the client). */
export interface Translatable<Request> {
  request: Request;
  dropped: string[];
}

type Path = readonly PropertyKey[];

/** The fields that say what kind of message or part an object is: dropping one leaves a different request, not a smaller one. */
const KIND_FIELDS = new Set(["type", "role"]);

const matches = (pattern: readonly string[], path: Path): boolean =>
  pattern.length === path.length && pattern.every((segment, index) => segment === "*" || segment === String(path[index]));

function holderOf(body: unknown, path: Path): Record<string, unknown> | undefined {
  let node: unknown = body;
  for (const segment of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node !== null && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>) : undefined;
}

/**
 * Reads a request in its wire's translatable form: every field known; a field the schema does
 * not carry is judged by its meaning — inert fields pass, hints are dropped and named, anything
 * else is refused naming it (400 `validation_failed`, `param` the field), or dropped and named
 * when the target's model drops unsupported fields. Only whole fields of objects are ever
 * dropped: a part of a kind the target has no counterpart for is refused.
 */
export function readTranslatable<Schema extends z.ZodType>(schema: Schema, body: unknown, target: TranslationTarget, meanings: readonly FieldMeaning[]): Translatable<z.infer<Schema>> {
  const dropped: string[] = [];
  let current = body;
  let copied = false;
  // Each round strips what it can judge; a field inside one that was refused shows only after.
  for (;;) {
    const result = schema.safeParse(current);
    if (result.success) return { request: result.data, dropped };
    const raw = specificIssues(result.error);
    const removable: Path[] = [];
    const refused: { path: string; message: string }[] = [];
    const refusedIssues: typeof raw = [];
    const judge = (path: Path, message: string, issue: (typeof raw)[number]) => {
      const holder = holderOf(current, path);
      const name = path[path.length - 1];
      // Only a field that is there can be dropped; a part's or message's kind never is.
      const field = holder !== undefined && typeof name === "string" && holder[name] !== undefined;
      const meaning = field ? meanings.find((rule) => matches(rule.path, path) && (rule.when?.(holder[name], holder) ?? true)) : undefined;
      if (meaning || (field && !KIND_FIELDS.has(name) && target.unsupportedFields === "drop")) {
        removable.push(path);
        if (meaning?.meaning !== "inert") dropped.push(formatPath(path));
        return;
      }
      refused.push({ path: formatPath(path), message });
      refusedIssues.push(issue);
    };
    const issues = fieldIssues(result.error);
    raw.forEach((cause, index) => {
      if (cause.code === "unrecognized_keys") {
        for (const key of cause.keys) judge([...cause.path, key], `cannot be carried to ${target.description}`, cause);
      } else if (cause.code === "invalid_value" || cause.code === "invalid_union") {
        // A value or a kind of part the translation does not know: say where it cannot go.
        judge(cause.path, `${issues[index]!.message}: cannot be carried to ${target.description}`, cause);
      } else {
        refused.push(issues[index]!);
        refusedIssues.push(cause);
      }
    });
    if (refused.length > 0) return raiseInvalid(describeIssues(refused), paramOf(refusedIssues[0]));
    if (!copied) {
      current = structuredClone(current);
      copied = true;
    }
    for (const path of removable) delete holderOf(current, path)![path[path.length - 1] as string];
  }
}

/** Something the target wire has no way to say (a part, a shape): 400 naming it and the target. */
export function untranslatable(param: string, target: TranslationTarget, why: string): never {
  return raiseInvalid(`${param}: cannot be carried to ${target.description}: ${why}`, param);
}

/**
 * A field the target wire has no way to say, found as the request is written for it: refused
 * naming it and the target — or, on a model that drops unsupported fields, named in `dropped`
 * for the writer to leave out.
 */
export function unsupportedField(param: string, target: TranslationTarget, why: string, dropped: Set<string>): void {
  if (target.unsupportedFields !== "drop") untranslatable(param, target, why);
  dropped.add(param);
}

function raiseInvalid(detail: string, param: string | undefined): never {
  throw new GatewayError("validation_failed", `Invalid fields: ${detail}.`, param === undefined ? {} : { param });
}
