import { readdirSync, readFileSync } from "node:fs";

/** A running process: its id, its parent's and its command line. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  command: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    // The command name in `stat` is in parentheses and may hold spaces: the parent id follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, ppid, command };
  } catch {
    return undefined; // it ended meanwhile
  }
}

/** Every live descendant of `root` (Linux `/proc`), children before grandchildren. */
export function descendantsOf(root: number): ProcessInfo[] {
  const all = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => readProcess(Number(entry)))
    .filter((info): info is ProcessInfo => info !== undefined);
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const info of all) {
      if (parents.has(info.ppid) && !parents.has(info.pid)) {
        parents.add(info.pid);
        found.push(info);
        grew = true;
      }
    }
  }
  return found;
}

/** Sends SIGKILL to one process by its id; one that already ended is fine. */
export function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
