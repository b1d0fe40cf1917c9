// Differential parity: the same scenario against the upstream cloud-controller-manager (k8s.io/cloud-provider
// v0.36.3 with a Go devcloud provider, test/peer/go) and against wasm-ccm with the devcloud plugin, each on a fresh
// control plane and a fresh, identically seeded devcloud. Every difference in Nodes, Services, Events and the cloud
// fails the test unless allow-list.ts documents it.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALLOWED_DIFFERENCES } from './allow-list.ts';
import { runScenario, type Snapshot } from './scenario.ts';
import { peerBinaryPath } from '../../support/peer-ccm.ts';

function diff(upstream: Snapshot, wasm: Snapshot): { failing: string[]; allowed: string[] } {
  const failing: string[] = [];
  const allowed: string[] = [];
  const keys = [...new Set([...upstream.keys(), ...wasm.keys()])].sort();
  for (const key of keys) {
    const u = upstream.get(key);
    const w = wasm.get(key);
    if (u === w) continue;
    const line = `${key}: upstream=${u ?? '(absent)'} wasm-ccm=${w ?? '(absent)'}`;
    const allow = ALLOWED_DIFFERENCES.find((a) => a.path.test(key));
    if (allow) allowed.push(`${line}  [allowed: ${allow.reason}]`);
    else failing.push(line);
  }
  return { failing, allowed };
}

describe('parity with the upstream cloud-controller-manager', () => {
  it(`behaves as ${peerBinaryPath()} does`, async () => {
    const steps: string[] = [];
    const log = (m: string): void => void steps.push(m);
    const upstream = await runScenario('upstream', log);
    const wasm = await runScenario('wasm-ccm', log);
    const dump = process.env.PARITY_DUMP; // a directory: write both snapshots there, to read what was compared
    if (dump) {
      for (const [name, snap] of [
        ['upstream', upstream],
        ['wasm-ccm', wasm],
      ] as const) {
        writeFileSync(
          `${dump}/parity-${name}.txt`,
          [...snap]
            .map(([k, v]) => `${k} = ${v}`)
            .sort()
            .join('\n') + '\n',
        );
      }
      writeFileSync(`${dump}/parity-steps.txt`, steps.join('\n') + '\n');
    }
    const { failing, allowed } = diff(upstream, wasm);
    if (allowed.length > 0) console.log(`parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    const message = `wasm-ccm differs from upstream in ${failing.length} place(s):\n  ${failing.join('\n  ')}\n\nsteps:\n  ${steps.join('\n  ')}`;
    expect(failing, message).toEqual([]);
    expect(upstream.size).toBeGreaterThan(50);
  }, 200_000);
});
