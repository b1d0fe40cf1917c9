// `npx wasm-ccm` (npm exec) and `npm run` start the CCM through a shell: npm -> sh -c -> node. On SIGTERM or SIGINT
// npm passes the signal to the shell, and a shell that forked (dash, Debian's sh, does) dies without passing it on:
// the CCM is orphaned, keeps running and keeps its Lease. Started by npm, the CCM therefore watches the processes
// between itself and npm, and stops as on SIGTERM when one of them is gone.
import { readFileSync } from 'node:fs';

const POLL_MS = 500;

/** The parent of `pid` from /proc (Linux); undefined where /proc cannot tell. */
function parentOf(pid: number): number | undefined {
  try {
    // Field 4 of /proc/<pid>/stat, after the command name in parentheses (which may hold spaces and parentheses).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether npm started this process: npm sets npm_command (exec for npx, run-script for npm run). */
export function startedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_command !== undefined && env.npm_command !== '';
}

/**
 * Calls `onGone` once when the parent (the shell) or the grandparent (npm) exits; returns the stop function. The
 * timer is unref'd: it never keeps the process alive by itself.
 */
export function watchNpmParent(onGone: (which: string) => void): () => void {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    let gone: string | undefined;
    if (process.ppid !== parent || !alive(parent)) gone = `parent process ${parent}`;
    else if (grandparent !== undefined && !alive(grandparent)) gone = `npm (process ${grandparent})`;
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
