// The OpenStack plugin side by side with OCCM (openstack-cloud-controller-manager v1.36.0): the same scenario
// (support/parity-run.ts) runs once with OCCM and once with wasm-ccm + plugins/openstack, one after the other on the
// same control plane, each against a fresh project of one lab OpenStack seeded identically, and every normalized
// field (Nodes, the Service, Events, Octavia's load balancer tree, the router's extra routes, allowed address pairs)
// at each checkpoint must be equal or on support/parity-allow-list.ts, which plugins/openstack/README.md ("Where it
// differs from OCCM") explains too.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LabOpenStack } from '../../../lab/clouds/openstack/index.ts';
import {
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
  uniqueName,
} from '../../../lab/controlplane/index.ts';
import { diffSnapshots, differencesText, snapshotText } from '../../support/parity/diff.ts';
import { OPENSTACK_ALLOWED_DIFFERENCES } from './support/parity-allow-list.ts';
import { parityEstate, runOpenStackParity } from './support/parity-run.ts';
import { LAB_START_TIMEOUT_MS, labOpenStack } from './support/lab.ts';
import type { ParityContext } from './support/parity-side.ts';

describe('the OpenStack plugin beside OCCM, against the same lab OpenStack', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const namespace = uniqueName('e2e-osparity');
  let stack: LabOpenStack;
  let ctx: ParityContext;

  beforeAll(async () => {
    stack = await labOpenStack();
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const base = 30_000 + Math.floor(Math.random() * 2_700);
    ctx = { info, admin, token, stack, namespace, nodePorts: [base, base + 1] };
  }, LAB_START_TIMEOUT_MS);

  afterAll(async () => {
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }, 120_000);

  it('initializes, routes, balances and cleans up as OCCM does', async () => {
    // One side after the other: both CCMs would act on the same Nodes and Service. Each project is seeded just
    // before its side runs (eight servers booting at once overload nova on a busy 2-core machine).
    const occm = await runOpenStackParity('occm', ctx, await parityEstate(stack, 'occm'));
    const wasm = await runOpenStackParity('wasm-ccm', ctx, await parityEstate(stack, 'wasm-ccm'));
    console.log(`occm steps: ${occm.steps.join(', ')}\nwasm-ccm steps: ${wasm.steps.join(', ')}`);
    if (process.env.PARITY_DUMP) {
      console.log(`occm:\n${snapshotText(occm.out)}\nwasm-ccm:\n${snapshotText(wasm.out)}`);
    }
    const { failing, allowed } = diffSnapshots(occm.out, wasm.out, OPENSTACK_ALLOWED_DIFFERENCES);
    const compared = new Set([...occm.out.keys(), ...wasm.out.keys()]).size;
    console.log(`openstack parity: ${compared} fields compared, ${allowed.length} allowed, ${failing.length} failing`);
    if (allowed.length > 0) console.log(`openstack parity: allowed differences:\n  ${allowed.join('\n  ')}`);
    expect(failing, differencesText(failing)).toEqual([]);
  }, 1_500_000);
});
