/** CPU time of processes and their threads, read from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds of a `stat` line (a process's or a thread's), and the name in its parentheses. */
function readStat(path: string): { name: string; seconds: number } {
  const stat = readFileSync(path, "utf8");
  // Fields after the command's closing parenthesis (the name may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

/** CPU seconds one thread has used so far, from its `stat` file (`/proc/<pid>/task/<tid>/stat`). */
export function threadCpuSeconds(statPath: string): number {
  return readStat(statPath).seconds;
}

/** The `stat` file of the thread that calls this (a worker thread names its own). */
export function ownThreadStatPath(): string {
  return `/proc/${readlinkSync("/proc/thread-self")}/stat`;
}

/** CPU seconds (user + system, every thread) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    return readStat(`/proc/${pid}/stat`).seconds;
  } catch {
    return 0;
  }
}

/** CPU seconds each thread of a process has used so far, summed by thread name (V8's GC helpers share one name); the main thread is named as such. */
export function cpuSecondsByThread(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, seconds } = readStat(`/proc/${pid}/task/${task}/stat`);
      const label = task === String(pid) ? "main thread (event loop)" : name;
      threads.set(label, (threads.get(label) ?? 0) + seconds);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return threads;
}
