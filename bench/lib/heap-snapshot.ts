/**
 * Reads V8 heap snapshots (`.heapsnapshot`, as `--heapsnapshot-signal` writes them) and counts
 * objects by kind: a constructor's name for objects and closures' names for closures, and the
 * V8 type (string, code, array, …) for the rest. Two snapshots' difference says what more objects
 * a process holds, e.g. per open stream. Self sizes only: what each object itself occupies, not
 * what it keeps alive.
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface KindCount {
  count: number;
  bytes: number;
}

/** Objects of `path` by kind. */
export function countByKind(path: string): Map<string, KindCount> {
  const parsed = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const fields = parsed.snapshot.meta.node_fields;
  const types = parsed.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const kinds = new Map<string, KindCount>();
  for (let at = 0; at < parsed.nodes.length; at += width) {
    const type = types[parsed.nodes[at + typeAt]!]!;
    const name = parsed.strings[parsed.nodes[at + nameAt]!]!;
    // Objects by constructor, closures by function, native objects by class; strings' contents and code's names are noise here.
    const kind = type === "object" || type === "closure" || type === "native" || type === "hidden" || type === "array" ? `${type} ${name.slice(0, 80)}` : `(${type})`;
    const entry = kinds.get(kind) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += parsed.nodes[at + sizeAt]!;
    kinds.set(kind, entry);
  }
  return kinds;
}

/** Kinds whose bytes grew from `before` to `after`, most first. */
export function growth(before: Map<string, KindCount>, after: Map<string, KindCount>): Array<{ kind: string } & KindCount> {
  return [...after]
    .map(([kind, { count, bytes }]) => ({ kind, count: count - (before.get(kind)?.count ?? 0), bytes: bytes - (before.get(kind)?.bytes ?? 0) }))
    .filter((entry) => entry.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}
