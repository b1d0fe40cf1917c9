// Removes what an earlier run left behind if it was killed too hard to clean up (SIGKILL, OOM, lost machine):
// each control-plane directory records its owner's pid and its children's pids.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface OwnerFile {
  owner: number;
  pids: number[];
}

export function writeOwnerFile(dir: string, pids: readonly number[]): void {
  const owner: OwnerFile = { owner: process.pid, pids: [...pids] };
  writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner));
}

/** Whether a process with this pid exists (signal 0: nothing is sent). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when `pid` is still the process that was started with `dir` on its command line (not a reused pid). */
function belongsTo(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

export function reapStaleControlPlanes(parent: string, prefix: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of entries) {
    const dir = join(parent, name);
    const ownerPath = join(dir, 'owner.json');
    if (!existsSync(ownerPath)) continue;
    let owner: OwnerFile;
    try {
      owner = JSON.parse(readFileSync(ownerPath, 'utf8')) as OwnerFile;
    } catch {
      continue;
    }
    if (processAlive(owner.owner)) continue;
    for (const pid of owner.pids) {
      if (processAlive(pid) && belongsTo(pid, dir)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
