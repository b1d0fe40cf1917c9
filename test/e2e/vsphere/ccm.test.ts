// wasm-ccm as a real process running the vSphere plugin against vcsim (credentials checked, TLS with a test CA; the
// host's `vsphere` credentials entry logs in): kwok Nodes carrying their VMs' system UUIDs are initialized with
// vsphere:// providerIDs, zone and region from the tags of the VMs' host ancestry, addresses and instance types; a
// powered-off VM's NotReady Node is tainted, a destroyed VM's NotReady Node deleted.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deleteNodes, hasTaint, SHUTDOWN_TAINT_KEY } from '../../../lab/ccm/index.ts';
import type { Vcsim } from '../../../lab/clouds/vsphere/index.ts';
import {
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
  startKwok,
} from '../../../lab/controlplane/index.ts';
import { eventually, type ManagedProcess } from '../../../lab/process/index.ts';
import { addVm, type EstateVm, INSTANCE_TYPE, REGION, startEstate, vmNode, VMS } from './support/estate.ts';
import {
  DESTROYED,
  gone,
  initialized,
  type Running,
  startVsphereCCM,
  STOPPED,
  stopAndDestroy,
} from './support/parity-run.ts';

// A VM whose guest host name is not its Node's name: only the Node's systemUUID, byte-swapped back, finds it.
const BY_UUID_ONLY: EstateVm = {
  name: 'node-by-uuid',
  uuid: '4210a1b2-c3d4-e5f6-0718-293a4b5c6d05',
  ip: '10.20.0.15',
  zone: 'zone-b',
};
const GUEST_HOST_NAME = 'guest-5.example';

describe('wasm-ccm with the vSphere plugin against vcsim', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  let vc: Vcsim;
  let ccm: Running;
  let kwok: ManagedProcess;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    vc = await startEstate();
    await addVm(vc, BY_UUID_ONLY, GUEST_HOST_NAME);
    kwok = startKwok({ kubeconfigPath: info.kubeconfigPath, logDir: mkdtempSync(join(info.dir, 'kwok-vsphere-')) });
    for (const vm of [...VMS, BY_UUID_ONLY]) await core.createNode({ body: vmNode(vm) });
    ccm = startVsphereCCM('wasm-ccm', { info, admin, token }, vc);
  }, 60_000);

  afterAll(async () => {
    const code = await ccm?.stop();
    await kwok?.stop();
    await deleteNodes(
      admin,
      [...VMS, BY_UUID_ONLY].map((vm) => vm.name),
    );
    await vc?.stop();
    expect(code).toBe(0);
  });

  it('initializes the Nodes with providerIDs, zones, regions, addresses and instance types', async () => {
    for (const vm of [...VMS, BY_UUID_ONLY]) {
      const node = await initialized(core, ccm, 'wasm-ccm', vm.name);
      expect(node.spec?.providerID).toBe(`vsphere://${vm.uuid}`);
      expect(node.metadata?.labels).toMatchObject({
        'node.kubernetes.io/instance-type': INSTANCE_TYPE,
        'topology.kubernetes.io/zone': vm.zone,
        'topology.kubernetes.io/region': REGION,
      });
      expect((node.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`)).toEqual([
        `Hostname ${vm === BY_UUID_ONLY ? GUEST_HOST_NAME : vm.name}`,
        `InternalIP ${vm.ip}`,
        `ExternalIP ${vm.ip}`,
      ]);
    }
  }, 60_000);

  it("taints a powered-off VM's NotReady Node and deletes a destroyed VM's", async () => {
    await stopAndDestroy(admin, vc);
    await eventually('shutdown taint', async () =>
      hasTaint(await core.readNode({ name: STOPPED.name }), SHUTDOWN_TAINT_KEY),
    );
    await eventually(`${DESTROYED.name} deleted`, () => gone(core, DESTROYED.name));
    // The powered-off VM's Node stays, and the running VMs' Nodes keep no shutdown taint.
    expect((await core.readNode({ name: STOPPED.name })).metadata?.name).toBe(STOPPED.name);
    for (const vm of VMS.slice(0, 2)) {
      expect(hasTaint(await core.readNode({ name: vm.name }), SHUTDOWN_TAINT_KEY)).toBe(false);
    }
  }, 60_000);
});
