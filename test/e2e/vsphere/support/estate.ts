// What the vSphere end-to-end tests run against: a vcsim (lab/clouds/vsphere) seeded with one datacenter (tagged
// region-a), a cluster (tagged zone-a) with one host, a standalone host (tagged zone-b), and a VM per node name with a
// fixed BIOS UUID and guest address; and the kwok Nodes that stand for those VMs, with the systemUUID a kubelet on each
// would report (the BIOS UUID with its first three groups byte-swapped, as the SMBIOS table holds it).
import type { V1Node } from '@kubernetes/client-node';
import { KWOK_ANNOTATION, KWOK_ANNOTATION_VALUE } from '../../../../lab/controlplane/index.ts';
import { kubeletNode } from '../../../../lab/ccm/index.ts';
import {
  addCluster,
  addDatacenter,
  addHost,
  attachTag,
  clusterPath,
  createTag,
  createTagCategory,
  createVm,
  hostPath,
  startVcsim,
  type Vcsim,
} from '../../../../lab/clouds/vsphere/index.ts';
import type { VcenterAccount, VsphereTopology } from '../../../../lab/peers/index.ts';

export const DATACENTER = 'dc-1';
export const ZONE_CATEGORY = 'k8s-zone';
export const REGION_CATEGORY = 'k8s-region';
export const TOPOLOGY: VsphereTopology = {
  datacenters: [DATACENTER],
  zoneCategory: ZONE_CATEGORY,
  regionCategory: REGION_CATEGORY,
};

const CLUSTER_HOST = { datacenter: DATACENTER, cluster: 'cluster-1', name: 'esx-1.example' };
const STANDALONE_HOST = { datacenter: DATACENTER, name: 'esx-2.example' };

export interface EstateVm {
  name: string;
  /** The BIOS UUID (`config.uuid`): the providerID's. */
  uuid: string;
  ip: string;
  zone: string;
}

/** The VMs, each a Node of the same name; on the cluster's host (zone-a) or the standalone one (zone-b). */
export const VMS: readonly EstateVm[] = [
  { name: 'node-1', uuid: '4210a1b2-c3d4-e5f6-0718-293a4b5c6d01', ip: '10.20.0.11', zone: 'zone-a' },
  { name: 'node-2', uuid: '4210a1b2-c3d4-e5f6-0718-293a4b5c6d02', ip: '10.20.0.12', zone: 'zone-b' },
  { name: 'node-3', uuid: '4210a1b2-c3d4-e5f6-0718-293a4b5c6d03', ip: '10.20.0.13', zone: 'zone-a' },
  { name: 'node-4', uuid: '4210a1b2-c3d4-e5f6-0718-293a4b5c6d04', ip: '10.20.0.14', zone: 'zone-b' },
];
export const REGION = 'region-a';
/** What upstream's instance type names: 2 CPUs, 4 GiB, an Ubuntu guest (createVm's defaults). */
export const INSTANCE_TYPE = 'vsphere-vm.cpu-2.mem-4gb.os-ubuntu';

/** The SMBIOS system UUID of a VM with BIOS UUID `uuid`: its first three groups byte-swapped, upper case. */
export function systemUUIDOf(uuid: string): string {
  const swap = (group: string): string => (group.match(/../g) ?? []).reverse().join('');
  const groups = uuid.split('-');
  return [swap(groups[0]!), swap(groups[1]!), swap(groups[2]!), groups[3], groups[4]].join('-').toUpperCase();
}

/** vcsim with the estate seeded (~5 s: one govc process per call). */
export async function startEstate(): Promise<Vcsim> {
  const vc = await startVcsim();
  try {
    await addDatacenter(vc, DATACENTER);
    await addCluster(vc, DATACENTER, CLUSTER_HOST.cluster);
    await addHost(vc, CLUSTER_HOST);
    await addHost(vc, STANDALONE_HOST);
    for (const vm of VMS) await addVm(vc, vm);
    await createTagCategory(vc, REGION_CATEGORY, ['Datacenter']);
    await createTagCategory(vc, ZONE_CATEGORY, ['ClusterComputeResource', 'HostSystem']);
    for (const tag of ['zone-a', 'zone-b']) await createTag(vc, ZONE_CATEGORY, tag);
    await createTag(vc, REGION_CATEGORY, REGION);
    await attachTag(vc, REGION_CATEGORY, REGION, `/${DATACENTER}`);
    await attachTag(vc, ZONE_CATEGORY, 'zone-a', clusterPath(DATACENTER, CLUSTER_HOST.cluster));
    await attachTag(vc, ZONE_CATEGORY, 'zone-b', hostPath(STANDALONE_HOST));
    return vc;
  } catch (err) {
    await vc.stop();
    throw err;
  }
}

/** A VM of the estate's datacenter on the host of its zone; its guest host name is its name unless given. */
export async function addVm(vc: Vcsim, vm: EstateVm, guestHostName = vm.name): Promise<void> {
  const host = vm.zone === 'zone-a' ? CLUSTER_HOST : STANDALONE_HOST;
  await createVm(vc, {
    name: vm.name,
    datacenter: DATACENTER,
    host: host.name,
    uuid: vm.uuid,
    ipAddress: vm.ip,
    hostName: guestHostName,
  });
  // vcsim's SET.config.uuid leaves summary.config.uuid (what both CCMs read for the providerID) at the UUID it
  // generated: set that one too.
  await vc.govc('vm.change', '-dc', DATACENTER, '-vm', vm.name, '-e', `SET.summary.config.uuid=${vm.uuid}`);
}

export function account(vc: Vcsim): VcenterAccount {
  return { server: vc.server, username: vc.username, password: vc.password, caFile: vc.ca.caFile };
}

/** A Node as the kubelet on the VM registers it (kwok keeps it Ready), with the VM's system UUID. */
export function vmNode(vm: EstateVm): V1Node {
  const node = kubeletNode(vm.name, { annotations: { [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } });
  node.status = {
    ...node.status,
    nodeInfo: {
      architecture: 'amd64',
      bootID: '',
      containerRuntimeVersion: '',
      kernelVersion: '',
      kubeProxyVersion: '',
      kubeletVersion: '',
      machineID: '',
      operatingSystem: 'linux',
      osImage: '',
      systemUUID: systemUUIDOf(vm.uuid),
    },
  };
  return node;
}
