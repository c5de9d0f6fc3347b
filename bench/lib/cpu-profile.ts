/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and says where the time of a window went: self time
 * per function, inclusive time per function, and the heaviest call paths, each also in
 * microseconds per request. Frames of built JavaScript (`dist/*.js` with a source map beside it)
 * are named by their TypeScript source line, so a row points into gateway/src.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs since the previous sample (the first: since startTime). */
  timeDeltas: number[];
}

export interface FunctionTime {
  /** `name  file:line` (file relative to the repository, or a package's path from node_modules on). */
  frame: string;
  /** µs spent in the window. */
  micros: number;
}

export interface ProfileSummary {
  /** µs of samples in the window (all threads' time the profiled thread saw, idle included). */
  windowMicros: number;
  idleMicros: number;
  self: FunctionTime[];
  inclusive: FunctionTime[];
  /** Call paths below `root`, heaviest first (depth first), with inclusive µs. */
  tree: Array<FunctionTime & { depth: number }>;
  /**
   * Busy time by the gateway area that asked for it: each sample goes to the folder of the nearest
   * gateway frame on its stack (gateway/src/store/sqlite, …), Node, undici and Fastify code
   * included; a sample with no gateway frame on its stack is the HTTP plumbing every proxy runs
   * (or the collector, or V8's own work), named as such.
   */
  areas: FunctionTime[];
}

/** Whether a frame at `location` (as {@link locate} names it) is the gateway's own code: its source or the contract's. */
export function isGatewayCode(location: string): boolean {
  return location.startsWith("gateway/src/") || location.startsWith("contract/");
}

/** The area a frame at `location` belongs to, if it is gateway code: its folder (a file at the top of gateway/src: the file). */
function gatewayArea(location: string): string | undefined {
  if (!isGatewayCode(location)) return undefined;
  const parts = location.replace(/:\d+$/, "").split("/");
  return parts.length > 3 ? parts.slice(0, -1).join("/") : parts.join("/");
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** `file:line` of a frame, mapped to its TypeScript source when a source map sits beside the file. */
export function locate(frame: CallFrame, repoRoot: string): string {
  if (!frame.url) return "";
  let file = frame.url.startsWith("file://") ? fileURLToPath(frame.url) : frame.url;
  let line = frame.lineNumber + 1;
  if (file.endsWith(".js") && !file.includes("node_modules")) {
    if (!sourceMaps.has(file)) {
      const mapFile = `${file}.map`;
      sourceMaps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined);
    }
    const entry = sourceMaps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && "originalSource" in entry && entry.originalSource) {
      file = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : resolve(dirname(file), entry.originalSource);
      line = entry.originalLine + 1;
    }
  }
  const inModules = file.lastIndexOf("node_modules/");
  if (inModules >= 0) file = file.slice(inModules + "node_modules/".length);
  else if (file.startsWith(repoRoot)) file = file.slice(repoRoot.length + 1);
  return `${file}:${line}`;
}

/**
 * Summarises the samples of `path` taken between `from` and `to` (µs on the monotonic clock, as
 * `process.hrtime` reads it: V8's profile timestamps use the same clock on Linux). `root` names
 * the function whose subtree the call tree shows (the first frame whose label includes it).
 */
export function summariseProfile(path: string, from: number, to: number, repoRoot: string, root: string, treeDepth = 14): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const labels = new Map<number, string>();
  const label = (id: number) => {
    let text = labels.get(id);
    if (text === undefined) {
      const frame = byId.get(id)!.callFrame;
      text = `${frame.functionName || "(anonymous)"}  ${locate(frame, repoRoot)}`.trim();
      labels.set(id, text);
    }
    return text;
  };

  // Each sample's time: the gap to the next sample (what the sampler attributes to this one).
  const nodeMicros = new Map<number, number>();
  let time = profile.startTime;
  let windowMicros = 0;
  for (let at = 0; at < profile.samples.length; at++) {
    time += profile.timeDeltas[at]!;
    const next = profile.timeDeltas[at + 1] ?? 0;
    if (time < from || time > to) continue;
    nodeMicros.set(profile.samples[at]!, (nodeMicros.get(profile.samples[at]!) ?? 0) + next);
    windowMicros += next;
  }

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  /** Inclusive µs per profile node (for the tree). */
  const nodeInclusive = new Map<number, number>();
  let idleMicros = 0;
  for (const [id, micros] of nodeMicros) {
    const own = label(id);
    if (own.startsWith("(idle)")) idleMicros += micros;
    self.set(own, (self.get(own) ?? 0) + micros);
    const seen = new Set<string>();
    for (let walk: number | undefined = id; walk !== undefined; walk = parent.get(walk)) {
      nodeInclusive.set(walk, (nodeInclusive.get(walk) ?? 0) + micros);
      const name = label(walk);
      // A recursive function counts once per sample.
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
      seen.add(name);
    }
  }
  const areas = new Map<string, number>();
  const areaById = new Map<number, string | undefined>();
  const areaOf = (id: number) => {
    if (!areaById.has(id)) areaById.set(id, gatewayArea(locate(byId.get(id)!.callFrame, repoRoot)));
    return areaById.get(id);
  };
  for (const [id, micros] of nodeMicros) {
    const own = label(id);
    if (own.startsWith("(idle)")) continue;
    let area: string | undefined;
    for (let walk: number | undefined = id; walk !== undefined && area === undefined; walk = parent.get(walk)) area = areaOf(walk);
    // V8's own entries ("(garbage collector)", "(program)") have no location.
    const name = area ?? (own.includes("  ") || !own.startsWith("(") ? "(no gateway frame: HTTP server and client, sockets, timers)" : own);
    areas.set(name, (areas.get(name) ?? 0) + micros);
  }
  const sorted = (map: Map<string, number>) => [...map].map(([frame, micros]) => ({ frame, micros })).sort((a, b) => b.micros - a.micros);

  const tree: ProfileSummary["tree"] = [];
  const roots = profile.nodes.filter((node) => label(node.id).includes(root) && (nodeInclusive.get(node.id) ?? 0) > 0);
  const rootTotal = roots.reduce((sum, node) => sum + nodeInclusive.get(node.id)!, 0);
  const walk = (id: number, depth: number) => {
    const micros = nodeInclusive.get(id) ?? 0;
    if (micros < rootTotal * 0.01 || depth > treeDepth) return;
    tree.push({ depth, frame: label(id), micros });
    const children = (byId.get(id)!.children ?? []).sort((a, b) => (nodeInclusive.get(b) ?? 0) - (nodeInclusive.get(a) ?? 0));
    for (const child of children) walk(child, depth + 1);
  };
  for (const node of roots) walk(node.id, 0);
  return { windowMicros, idleMicros, self: sorted(self), inclusive: sorted(inclusive), tree, areas: sorted(areas) };
}
