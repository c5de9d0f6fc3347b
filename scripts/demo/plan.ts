/**
 * What a `pulumi preview` plans, read from the engine's structured events rather than its text, so
 * the demo can both show the plan in one line per resource and check it.
 */
import type * as auto from "@pulumi/pulumi/automation/index.js";

/** One resource the plan changes. */
export interface PlannedChange {
  /** The engine's operation: `create`, `update`, `replace`, `delete`, ... */
  op: string;
  /** Short type name, e.g. `ApiKey` for `pulumi-nodejs:dynamic/gateway:ApiKey`. */
  type: string;
  /** The resource's name in the program. */
  name: string;
  /** Each input that changes, by dotted path (`spendPolicy.limitUnits`), with its old and new value as text. */
  changed: { path: string; from: string; to: string }[];
  /** Inputs whose change forces a replacement. */
  replacing: string[];
}

const SYMBOL: Record<string, string> = { create: "+", update: "~", delete: "-", replace: "+-" };

/** The changes of a preview's events, leaving out the stack, providers and unchanged resources. */
export function planOf(events: auto.EngineEvent[]): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const event of events) {
    const step = event.resourcePreEvent?.metadata;
    if (!step || step.op === "same" || step.type === "pulumi:pulumi:Stack" || step.type.startsWith("pulumi:providers:")) continue;
    changes.push({
      op: step.op,
      type: step.type.split(":").pop()!,
      name: step.urn.split("::").pop()!,
      // Dynamic providers cannot report which properties differ, so compare the inputs here.
      changed: step.old && step.new ? leafChanges(step.old.inputs, step.new.inputs) : [],
      replacing: step.keys ?? [],
    });
  }
  return changes;
}

/** One line: `~ update ApiKey "quickstart" in place: rotationTrigger "1" -> "2"`. */
export function describeChange(change: PlannedChange): string {
  const head = `${SYMBOL[change.op] ?? "*"} ${change.op} ${change.type} "${change.name}"`;
  if (change.op !== "update" && change.op !== "replace") return head;
  const how = change.op === "update" ? "in place" : `(forced by ${change.replacing.join(", ")})`;
  return `${head} ${how}: ${change.changed.map(({ path, from, to }) => `${path} ${from} -> ${to}`).join(", ")}`;
}

function leafChanges(before: unknown, after: unknown, path = ""): PlannedChange["changed"] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !key.startsWith("__")).sort();
    return keys.flatMap((key) => leafChanges(before[key], after[key], path ? `${path}.${key}` : key));
  }
  const [from, to] = [show(before), show(after)];
  return from === to ? [] : [{ path, from, to }];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The engine's stand-in for a value known only after the update (the provider's preview of a new secret). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A short form of an input value; secrets arrive masked by the engine. */
function show(value: unknown): string {
  if (value === undefined) return "(none)";
  if (value === UNKNOWN) return "[unknown]";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
