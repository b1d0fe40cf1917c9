// Differential parity: the same scenarios against the upstream cloud-controller-manager (k8s.io/cloud-provider
// v0.36.3 with a Go devcloud provider, lab/peers/devcloud-go) and against wasm-ccm with the devcloud plugin, each group on a
// fresh control plane and a fresh, identically seeded devcloud per side. Every difference in Nodes, Services,
// Events and the cloud, at every step's checkpoint and at the end, fails unless allow-list.ts documents it.
// PARITY_SCENARIOS=pip,v6 runs only those scenarios; PARITY_KEEP=1 keeps the log directory of a passing run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED_DIFFERENCES } from '../../support/parity/allow-list.ts';
import { diffSnapshots, differencesText, snapshotText } from '../../support/parity/diff.ts';
import { runGroup } from './harness/run.ts';
import type { Group } from './harness/scenario.ts';
import { IMPLS } from './harness/world.ts';
import { selectedGroups } from './scenarios/groups.ts';
import { peerBinaryPath } from '../../../lab/peers/index.ts';

async function compareGroup(group: Group): Promise<void> {
  const logDir = mkdtempSync(join(tmpdir(), `wasm-ccm-parity-${group.name}-`));
  const steps: string[] = [];
  const log = (line: string): void => void steps.push(line);
  let passed = false;
  try {
    const upstream = await runGroup({ group, impl: IMPLS[0]!, logDir, log });
    const wasmSnap = await runGroup({ group, impl: IMPLS[1]!, logDir, log });
    writeFileSync(join(logDir, 'upstream.snapshot.txt'), snapshotText(upstream));
    writeFileSync(join(logDir, 'wasm-ccm.snapshot.txt'), snapshotText(wasmSnap));
    const { failing, allowed } = diffSnapshots(upstream, wasmSnap, ALLOWED_DIFFERENCES);
    if (allowed.length > 0) console.log(`parity ${group.name}: allowed differences:\n  ${allowed.join('\n  ')}`);
    const message = `${differencesText(failing)}\n\nlogs and snapshots: ${logDir}\nsteps:\n  ${steps.join('\n  ')}`;
    expect(failing, message).toEqual([]);
    expect(upstream.size).toBeGreaterThan(20);
    passed = true;
  } finally {
    writeFileSync(join(logDir, 'steps.txt'), steps.join('\n') + '\n');
    if (passed && !process.env.PARITY_KEEP) rmSync(logDir, { recursive: true, force: true });
  }
}

describe(`parity with the upstream cloud-controller-manager (${peerBinaryPath()})`, () => {
  for (const group of selectedGroups(process.env.PARITY_SCENARIOS)) {
    const names = group.scenarios.map((s) => s.name).join(', ');
    it(`${group.name}: ${names}`, () => compareGroup(group), 600_000);
  }
});
