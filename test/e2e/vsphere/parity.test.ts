// The vSphere plugin side by side with cloud-provider-vsphere v1.36.0: the same scenario (support/parity-run.ts) runs
// once with upstream's vsphere-cloud-controller-manager and once with wasm-ccm + plugins/vsphere, each against a fresh
// vcsim seeded identically, and every normalized field (the Nodes after initialization and after a VM's power-off and
// another's destruction, the Nodes' Event reasons) must be equal or on support/allow-list.ts, which
// plugins/vsphere/README.md explains too.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
  startKwok,
} from '../../../lab/controlplane/index.ts';
import type { ManagedProcess } from '../../../lab/process/index.ts';
import { diffSnapshots, differencesText, snapshotText } from '../../support/parity/diff.ts';
import { VSPHERE_ALLOWED_DIFFERENCES } from './support/allow-list.ts';
import { VMS } from './support/estate.ts';
import { type ParityContext, runVsphereParity } from './support/parity-run.ts';

describe('the vSphere plugin beside cloud-provider-vsphere, against the same vcsim', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  let ctx: ParityContext;
  let kwok: ManagedProcess;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: mkdtempSync(join(info.dir, 'kwok-vsphere-')) });
    ctx = { info, admin, token };
  });

  afterAll(async () => {
    await kwok?.stop();
  });

  it('initializes Nodes, taints a powered-off VM and deletes a destroyed one as upstream does', async () => {
    // One after the other: both would act on the same Nodes.
    const upstream = await runVsphereParity('upstream', ctx);
    const wasm = await runVsphereParity('wasm-ccm', ctx);
    if (process.env.PARITY_DUMP) {
      console.log(`upstream:\n${snapshotText(upstream)}\nwasm-ccm:\n${snapshotText(wasm)}`);
    }
    // Both sides initialized the Nodes (a diff of two empty snapshots would pass).
    for (const snapshot of [upstream, wasm]) {
      expect(snapshot.get('initialized/node/node-1/providerID')).toBe(`"vsphere://${VMS[0]!.uuid}"`);
      expect(snapshot.get('lifecycle/nodes/#order')).toBe('["node-1","node-2","node-3"]');
    }
    const { failing, allowed } = diffSnapshots(upstream, wasm, VSPHERE_ALLOWED_DIFFERENCES);
    if (allowed.length > 0) console.log(`vsphere parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    expect(failing, differencesText(failing)).toEqual([]);
  }, 180_000);
});
