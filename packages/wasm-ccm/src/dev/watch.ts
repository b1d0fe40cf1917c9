// `wasm-ccm dev --watch`: a changed module file goes into the plugin ConfigMap, and what wasm-ccm made of it (swapped
// in, or rejected with its reason) is read back from wasm-ccm's log and said.
import { createHash } from 'node:crypto';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { readJsonLines } from '../../../../lab/process/index.ts';

/** How long a burst of writes (a compiler writing the module) settles before the file is read. */
const SETTLE_MS = 300;
const VERDICT_TIMEOUT_MS = 60_000;

export interface ModuleWatchTarget {
  putModule(module: Uint8Array): Promise<void>;
  readonly ccmLogPath: string;
}

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Watches `file` (its folder, so a replaced file is seen too); returns a function that stops watching. */
export function watchModule(
  file: string,
  initial: Uint8Array,
  target: ModuleWatchTarget,
  say: (line: string) => void,
): () => void {
  const path = resolve(file);
  let shipped = sha256Of(initial);
  let timer: NodeJS.Timeout | undefined;
  let busy = Promise.resolve();
  const ship = async (): Promise<void> => {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(path));
    } catch {
      return; // mid-rewrite, or removed: the next change event brings it back
    }
    const sha = sha256Of(bytes);
    if (bytes.byteLength === 0 || sha === shipped) return;
    shipped = sha;
    const logged = readJsonLines(target.ccmLogPath).length;
    await target.putModule(bytes);
    say(`${basename(path)} changed (${bytes.byteLength} bytes, sha256 ${sha.slice(0, 12)}): ConfigMap updated`);
    say(await verdict(target.ccmLogPath, logged, sha));
  };
  const watcher: FSWatcher = watch(dirname(path), (_event, name) => {
    if (name !== null && name !== basename(path)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      busy = busy.then(ship).catch((err: unknown) => say(`--watch: ${(err as Error).message}`));
    }, SETTLE_MS);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

/** What wasm-ccm logged about the module with `sha` after record `from`: swapped, rejected, or nothing in time. */
async function verdict(logPath: string, from: number, sha: string): Promise<string> {
  const deadline = Date.now() + VERDICT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    for (const r of readJsonLines(logPath).slice(from)) {
      if (r.sha256 !== sha) continue;
      if (r.msg === 'plugin swapped') return `wasm-ccm swapped it in: ${String(r.from)} -> ${String(r.to)}`;
      if (r.msg === 'plugin candidate rejected')
        return `wasm-ccm rejected it, keeping the one serving: ${String(r.reason)}`;
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return `wasm-ccm said nothing about it within ${VERDICT_TIMEOUT_MS / 1000} s; see ${logPath}`;
}
