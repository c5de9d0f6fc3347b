/**
 * Reads V8 heap snapshots (`.heapsnapshot`, as `--heapsnapshot-signal` writes them) and counts
 * objects by kind: a constructor's name for objects and closures' names for closures, and the
 * V8 type (string, code, array, …) for the rest; closures also by where they were defined. Two snapshots' difference says what more objects
 * a process holds, e.g. per open stream. Self sizes only: what each object itself occupies, not
 * what it keeps alive.
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  /** Per closure: its node's index in `nodes`, its script's id, line and column (0-based). */
  locations?: number[];
  strings: string[];
}

/**
 * Where each closure was defined, `file:line` by node index: a closure's location gives its
 * script's id; the script's name is found through the closure's `shared` → `script` → `name` edges.
 */
function closureSites(parsed: Snapshot, width: number): Map<number, string> {
  const edgeWidth = parsed.snapshot.meta.edge_fields.length;
  const edgeCountAt = parsed.snapshot.meta.node_fields.indexOf("edge_count");
  const nameAt = parsed.snapshot.meta.node_fields.indexOf("name");
  const firstEdge = new Uint32Array(parsed.nodes.length / width + 1);
  for (let node = 0, edge = 0; node < parsed.nodes.length / width; node++) {
    firstEdge[node] = edge;
    edge += parsed.nodes[node * width + edgeCountAt]! * edgeWidth;
  }
  const edgeTypes = parsed.snapshot.meta.edge_types[0];
  /** The node an edge named `name` of node `index` (an index into `nodes`) leads to. */
  const follow = (index: number, names: string[]): number | undefined => {
    const node = index / width;
    for (let edge = firstEdge[node]!; edge < firstEdge[node]! + parsed.nodes[index + edgeCountAt]! * edgeWidth; edge += edgeWidth) {
      const type = edgeTypes[parsed.edges[edge]!];
      const name = type === "element" || type === "hidden" ? "" : parsed.strings[parsed.edges[edge + 1]!];
      if (name !== undefined && names.includes(name)) return parsed.edges[edge + 2]!;
    }
    return undefined;
  };
  const scripts = new Map<number, string>();
  const sites = new Map<number, string>();
  const locations = parsed.locations ?? [];
  for (let at = 0; at < locations.length; at += 4) {
    const [index, scriptId, line] = [locations[at]!, locations[at + 1]!, locations[at + 2]!];
    if (!scripts.has(scriptId)) {
      const shared = follow(index, ["shared"]);
      const script = shared === undefined ? undefined : follow(shared, ["script", "script_or_debug_info"]);
      const name = script === undefined ? undefined : follow(script, ["name"]);
      scripts.set(scriptId, name === undefined ? `script ${scriptId}` : parsed.strings[parsed.nodes[name + nameAt]!]!.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(gateway|contract)\//, "$1/"));
    }
    sites.set(index, `${scripts.get(scriptId)}:${line + 1}`);
  }
  return sites;
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
  const sites = closureSites(parsed, width);
  const kinds = new Map<string, KindCount>();
  for (let at = 0; at < parsed.nodes.length; at += width) {
    const type = types[parsed.nodes[at + typeAt]!]!;
    const name = parsed.strings[parsed.nodes[at + nameAt]!]!;
    // Objects by constructor, closures by function, native objects by class; strings' contents and code's names are noise here.
    const kind =
      type === "closure"
        ? `closure ${name || "(anonymous)"} ${sites.get(at) ?? ""}`
        : type === "object" || type === "native" || type === "hidden" || type === "array"
          ? `${type} ${name.slice(0, 80)}`
          : `(${type})`;
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
