// CPU time of this process's threads by name (Linux): Node names worker threads after their `name` option (cut to
// 15 characters by the kernel), so a plugin instance's worker and a benchmark's helper threads can be measured apart.
// schedstat's first field is nanoseconds on CPU, far finer than /proc's 10 ms ticks.
import { readdirSync, readFileSync } from 'node:fs';

/** Nanoseconds on CPU of every thread of this process whose name is `name`. */
export function threadCpuNs(name: string): number {
  const wanted = name.slice(0, 15);
  let total = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== wanted) continue;
      total += Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread exited meanwhile
    }
  }
  return total;
}

/** Microseconds on CPU of the calling thread (user + system). */
export function ownThreadCpuUs(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}
