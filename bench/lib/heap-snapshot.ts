// A heap snapshot of a CCM's main thread, for the memory benchmarks: the CCM runs with the options below, and
// SIGUSR2 makes it write one into the directory.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './cluster-load.ts';

/** Node options that make a process write a heap snapshot into `dir` on SIGUSR2 (the directory is created). */
export function heapSnapshotNodeArgs(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`];
}

/** Signals `pid` and waits until its new snapshot in `dir` stops growing; returns its path (undefined after 10 min). */
export async function takeHeapSnapshot(pid: number, dir: string): Promise<string | undefined> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  let last = -1;
  for (let i = 0; i < 600; i++) {
    await sleep(1000);
    const fresh = readdirSync(dir).filter((f) => !before.has(f));
    const path = fresh.length > 0 ? join(dir, fresh[0] as string) : undefined;
    const size = path ? statSync(path).size : -1;
    if (size > 0 && size === last) return path;
    last = size;
  }
  return undefined;
}
