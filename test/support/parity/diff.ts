// Compares two flattened snapshots key by key; a difference fails unless the allow-list documents it.
import type { AllowedDifference } from './allow-list.ts';
import type { Snapshot } from './flatten.ts';

export interface SnapshotDiff {
  failing: string[];
  allowed: string[];
}

export function diffSnapshots(
  upstream: Snapshot,
  wasm: Snapshot,
  allowList: readonly AllowedDifference[],
): SnapshotDiff {
  const failing: string[] = [];
  const allowed: string[] = [];
  const keys = [...new Set([...upstream.keys(), ...wasm.keys()])].sort();
  for (const key of keys) {
    const u = upstream.get(key);
    const w = wasm.get(key);
    if (u === w) continue;
    const line = `${key}: upstream=${u ?? '(absent)'} wasm-ccm=${w ?? '(absent)'}`;
    const allow = allowList.find((a) => a.path.test(key) && (a.values?.(u, w) ?? true));
    if (allow) allowed.push(`${line}  [allowed: ${allow.reason}]`);
    else failing.push(line);
  }
  return { failing, allowed };
}

/** The snapshot as sorted `key = value` lines (PARITY_DUMP writes these). */
export function snapshotText(snap: Snapshot): string {
  return (
    [...snap]
      .map(([k, v]) => `${k} = ${v}`)
      .sort()
      .join('\n') + '\n'
  );
}

/** The message of a failed parity assertion: each difference on its own line, so a log cut to its head still names them. */
export function differencesText(failing: readonly string[]): string {
  return `wasm-ccm differs from upstream in ${failing.length} place(s):\n  ${failing.join('\n  ')}`;
}
