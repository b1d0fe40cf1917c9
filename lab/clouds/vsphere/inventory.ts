// Seeds and reads vcsim's inventory through govc, as upstream's own integration tests do: datacenters, clusters,
// hosts (each with a local datastore, where its VMs' files go), VMs with a given BIOS UUID, power state, guest IP and
// host name (vcsim sets any managed-object property from a `SET.<property>` extraConfig key), and the zone/region tags
// cloud-provider-vsphere reads from a VM's host ancestry.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Vcsim } from './vcsim.ts';

export interface HostSpec {
  datacenter: string;
  /** The cluster the host joins; none: a standalone host of the datacenter. */
  cluster?: string;
  /** The host's name, as vCenter shows it (`esx-1.example`). */
  name: string;
}

export interface VmSpec {
  name: string;
  datacenter: string;
  /** The host it runs on (its name, HostSpec.name): its datastore holds the VM's files. */
  host: string;
  /** The BIOS UUID (`config.uuid`), which the node's systemUUID names. Default: vcsim's. */
  uuid?: string;
  /** Default true. */
  powerOn?: boolean;
  /** `guest.net[0].ipAddress` (and `guest.ipAddress`). */
  ipAddress?: string;
  /** `guest.hostName`. */
  hostName?: string;
  cpus?: number;
  memoryMB?: number;
  /** The guest OS (`ubuntu64Guest`, the default). */
  guestId?: string;
}

export interface VmInfo {
  name: string;
  uuid: string;
  powerState: 'poweredOn' | 'poweredOff' | 'suspended';
  hostName: string | undefined;
  ipAddresses: string[];
  cpus: number;
  memoryMB: number;
}

/** The inventory path of a datacenter's cluster, standalone host or host in a cluster. */
export const clusterPath = (datacenter: string, cluster: string): string => `/${datacenter}/host/${cluster}`;
export const hostPath = (spec: HostSpec): string =>
  spec.cluster === undefined
    ? `/${spec.datacenter}/host/${spec.name}/${spec.name}`
    : `/${spec.datacenter}/host/${spec.cluster}/${spec.name}`;
export const vmPath = (datacenter: string, name: string): string => `/${datacenter}/vm/${name}`;

export async function addDatacenter(vc: Vcsim, name: string): Promise<void> {
  await vc.govc('datacenter.create', name);
}

export async function addCluster(vc: Vcsim, datacenter: string, name: string): Promise<void> {
  await vc.govc('cluster.create', '-dc', datacenter, name);
}

/** Adds a host (vcsim takes any host name) with a local datastore `ds-<name>` in the run's directory. */
export async function addHost(vc: Vcsim, spec: HostSpec): Promise<void> {
  const login = ['-hostname', spec.name, '-username', 'root', '-password', 'unchecked', '-noverify'];
  if (spec.cluster === undefined) await vc.govc('host.add', '-dc', spec.datacenter, ...login);
  else await vc.govc('cluster.add', '-dc', spec.datacenter, '-cluster', spec.cluster, ...login);
  const dir = join(vc.dir, 'datastores', spec.name);
  mkdirSync(dir, { recursive: true });
  await vc.govc('datastore.create', '-type', 'local', '-name', datastoreOf(spec.name), '-path', dir, hostPath(spec));
}

/** Creates a VM on its host, sets its identity and guest properties, then powers it on unless told not to. */
export async function createVm(vc: Vcsim, spec: VmSpec): Promise<void> {
  const dc = ['-dc', spec.datacenter];
  await vc.govc(
    'vm.create',
    ...dc,
    '-host',
    spec.host,
    '-ds',
    datastoreOf(spec.host),
    '-on=false',
    '-c',
    String(spec.cpus ?? 2),
    '-m',
    String(spec.memoryMB ?? 4096),
    '-g',
    spec.guestId ?? 'ubuntu64Guest',
    spec.name,
  );
  const set: Array<[string, string | undefined]> = [
    ['config.uuid', spec.uuid],
    ['guest.ipAddress', spec.ipAddress],
    ['guest.hostName', spec.hostName],
  ];
  const extra = set.flatMap(([property, value]) => (value === undefined ? [] : ['-e', `SET.${property}=${value}`]));
  if (extra.length > 0) await vc.govc('vm.change', ...dc, '-vm', spec.name, ...extra);
  if (spec.powerOn !== false) await powerOn(vc, spec.datacenter, spec.name);
}

export async function powerOn(vc: Vcsim, datacenter: string, vm: string): Promise<void> {
  await vc.govc('vm.power', '-dc', datacenter, '-on', vm);
}

export async function powerOff(vc: Vcsim, datacenter: string, vm: string): Promise<void> {
  await vc.govc('vm.power', '-dc', datacenter, '-off', '-force', vm);
}

/** Powers the VM off if it runs, then deletes it and its files. */
export async function destroyVm(vc: Vcsim, datacenter: string, vm: string): Promise<void> {
  await vc.govc('vm.destroy', '-dc', datacenter, vm);
}

/** The VM as vCenter shows it; undefined when there is none of that name. */
export async function readVm(vc: Vcsim, datacenter: string, vm: string): Promise<VmInfo | undefined> {
  const out = JSON.parse(await vc.govc('vm.info', '-dc', datacenter, '-json', vm)) as VmInfoAnswer;
  const found = (out.virtualMachines ?? [])[0];
  if (found === undefined) return undefined;
  return {
    name: found.name,
    uuid: found.config.uuid,
    powerState: found.runtime.powerState,
    hostName: found.guest?.hostName || undefined,
    ipAddresses: (found.guest?.net ?? []).flatMap((n) => n.ipAddress ?? []),
    cpus: found.config.hardware.numCPU,
    memoryMB: found.config.hardware.memoryMB,
  };
}

/** A tag category for the given object types (`Datacenter`, `ClusterComputeResource`, `HostSystem`). */
export async function createTagCategory(vc: Vcsim, name: string, objectTypes: readonly string[]): Promise<void> {
  await vc.govc('tags.category.create', ...objectTypes.flatMap((t) => ['-t', t]), name);
}

export async function createTag(vc: Vcsim, category: string, name: string): Promise<void> {
  await vc.govc('tags.create', '-c', category, name);
}

/** Attaches the category's tag to the object at the inventory path (clusterPath, hostPath, `/<datacenter>`). */
export async function attachTag(vc: Vcsim, category: string, tag: string, path: string): Promise<void> {
  await vc.govc('tags.attach', '-c', category, tag, path);
}

/** The names of the tags attached to the object at the inventory path. */
export async function attachedTags(vc: Vcsim, path: string): Promise<string[]> {
  const out = JSON.parse(await vc.govc('tags.attached.ls', '-json', '-r', path)) as string[] | null;
  return (out ?? []).sort();
}

const datastoreOf = (host: string): string => `ds-${host}`;

interface VmInfoAnswer {
  virtualMachines?: Array<{
    name: string;
    config: { uuid: string; hardware: { numCPU: number; memoryMB: number } };
    runtime: { powerState: VmInfo['powerState'] };
    guest?: { hostName?: string; net?: Array<{ ipAddress?: string[] }> | null };
  }> | null;
}
