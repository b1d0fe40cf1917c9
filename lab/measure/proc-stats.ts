// Resource use of a process from /proc (Linux): resident memory and CPU time, including every thread (the CCM's
// plugin instances run in worker threads of the same process).
import { readdirSync, readFileSync } from 'node:fs';

export interface MemoryStats {
  /** VmRSS: resident now. */
  rssMb: number;
  /** VmHWM: the peak resident size. */
  peakMb: number;
  /** RssAnon and RssFile: the resident part in anonymous memory (heaps, stacks) and in mapped files (the binary's
   * code and data, shared libraries). */
  anonMb: number;
  fileMb: number;
  /** Threads: the main thread, Node's own, and one per plugin instance. */
  threads: number;
}

export function memoryStats(pid: number): MemoryStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(m[1]);
  };
  const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return {
    rssMb: round1(kb('VmRSS') / 1024),
    peakMb: round1(kb('VmHWM') / 1024),
    anonMb: round1(kb('RssAnon') / 1024),
    fileMb: round1(kb('RssFile') / 1024),
    threads,
  };
}

// USER_HZ is 100 on every Linux this runs on; getconf is not worth a child process.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / TICKS_PER_SECOND;
}

/** CPU seconds per thread name (a thread's comm: "node" for the main thread, Node and V8 helpers, each plugin
 * worker by its name) of a process so far; schedstat's first field is nanoseconds on CPU. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(name, (out.get(name) ?? 0) + ns / 1e9);
    } catch {
      // the thread exited meanwhile
    }
  }
  return out;
}

/** What each thread name used between two threadCpuSeconds() readings, largest first, as "name 1.23 s, ...". */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(2)} s`)
    .join(', ');
}

/** The pid of the first process whose command line contains every one of `parts`, or undefined. */
export function findPid(parts: readonly string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // exited meanwhile
    }
    if (parts.every((p) => cmdline.includes(p))) return Number(entry);
  }
  return undefined;
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}
