// Nodes to VMs as cloud-provider-vsphere finds them: by the BIOS UUID, which is the providerID's (vsphere://<uuid>)
// or, before a node has one, the kubelet's system UUID with the byte order of its first three groups swapped (the
// SMBIOS order Linux reports); each UUID is tried in both orders, in every configured datacenter of every vCenter.
// A node without either is found by its name as a guest DNS name, then as an IP address.
import {
  instanceNotFound,
  internal,
  invalid,
  MoRef,
  Node,
  ObjectContent,
  parseIP,
  PluginError,
} from "@wasm-ccm/plugin-sdk";
import { Config, VCenter } from "./config";
import { Vim } from "./vim";

export const PROVIDER_NAME = "vsphere";
const SCHEME = "vsphere://";

const VM_PATHS = [
  "summary.config.uuid",
  "summary.config.numCpu",
  "summary.config.memorySizeMB",
  "summary.config.guestId",
  "runtime.powerState",
  "runtime.host",
  "resourcePool",
  "guest.hostName",
  "guest.net",
];

export class Nic {
  network: string = "";
  /** -1 for an interface that is no virtual NIC of the VM (upstream skips those). */
  deviceConfigId: i32 = 0;
  ips: string[] = [];
}

export class Vm {
  vim: Vim;
  vcenter: VCenter;
  ref: MoRef;
  uuid: string = "";
  numCpu: i32 = 0;
  memoryMB: i32 = 0;
  guestId: string = "";
  powerState: string = "";
  host: MoRef | null = null;
  resourcePool: MoRef | null = null;
  hostName: string = "";
  nics: Nic[] = [];

  constructor(vim: Vim, vcenter: VCenter, ref: MoRef) {
    this.vim = vim;
    this.vcenter = vcenter;
    this.ref = ref;
  }

  get providerID(): string {
    return SCHEME + this.uuid;
  }
}

export class VmLookup {
  /** null when the node has no VM. */
  vm: Vm | null = null;
  error: PluginError | null = null;
}

/** cloud-provider-vsphere's ConvertK8sUUIDtoNormal: the first three groups byte-swapped, lower case. */
export function convertK8sUUID(k8sUUID: string): string {
  if (k8sUUID.length < 36) return k8sUUID;
  const u = k8sUUID;
  const swapped =
    u.substring(6, 8) +
    u.substring(4, 6) +
    u.substring(2, 4) +
    u.substring(0, 2) +
    "-" +
    u.substring(11, 13) +
    u.substring(9, 11) +
    "-" +
    u.substring(16, 18) +
    u.substring(14, 16) +
    "-" +
    u.substring(19, 23) +
    "-" +
    u.substring(24, 36);
  return swapped.trimStart().trimEnd().toLowerCase();
}

/** The VM behind a node: by its providerID, else its system UUID, else its name. */
export function lookupNode(vims: Vim[], config: Config, node: Node): VmLookup {
  if (node.providerID != "") return lookupProviderID(vims, config, node.providerID);
  if (node.systemUUID.trimStart().trimEnd() != "") {
    const uuid = node.systemUUID.trimStart().trimEnd().toLowerCase();
    const found = byUuid(vims, config, [convertK8sUUID(uuid), uuid]);
    if (found.error !== null || found.vm !== null) return found;
  }
  return byName(vims, config, node.name);
}

export function lookupProviderID(vims: Vim[], config: Config, providerID: string): VmLookup {
  if (!providerID.startsWith(SCHEME)) {
    const out = new VmLookup();
    out.error = invalid('providerID "' + providerID + '" is not vsphere://<VM BIOS UUID>');
    return out;
  }
  const uuid = providerID.substring(SCHEME.length).trimStart().trimEnd().toLowerCase();
  return byUuid(vims, config, [uuid, convertK8sUUID(uuid)]);
}

/** Each UUID in turn, across every datacenter, as upstream's shakeOutNodeIDLookup. */
function byUuid(vims: Vim[], config: Config, uuids: string[]): VmLookup {
  for (let u = 0; u < uuids.length; u++) {
    if (u > 0 && uuids[u] == uuids[0]) break;
    const found = search(vims, config, uuids[u], SearchBy.Uuid);
    if (found.error !== null || found.vm !== null) return found;
  }
  return new VmLookup();
}

/** Upstream's FindVMByName: the name as a guest DNS name (lower case), then as an IP address. */
export function byName(vims: Vim[], config: Config, name: string): VmLookup {
  const found = search(vims, config, name.trimStart().trimEnd().toLowerCase(), SearchBy.DnsName);
  if (found.error !== null || found.vm !== null || parseIP(name.trimStart().trimEnd()) === null) return found;
  return search(vims, config, name.trimStart().trimEnd(), SearchBy.Ip);
}

enum SearchBy {
  Uuid,
  DnsName,
  Ip,
}

/** The first VM found in the vCenters' datacenters, in configuration order. A datacenter that cannot be searched
 * fails the lookup only when no other one has the VM (as upstream's globalErr). */
function search(vims: Vim[], config: Config, key: string, by: SearchBy): VmLookup {
  const out = new VmLookup();
  let failure: PluginError | null = null;
  for (let v = 0; v < vims.length; v++) {
    const vim = vims[v];
    const dcs = datacenters(vim, config.vcenters[v]);
    if (dcs.error !== null) failure = dcs.error;
    for (let d = 0; d < dcs.refs.length; d++) {
      const found = findIn(vim, dcs.refs[d], key, by);
      if (found.error !== null) {
        failure = found.error;
        continue;
      }
      if (found.ref === null) continue;
      return readVm(vim, config.vcenters[v], found.ref!);
    }
  }
  out.error = failure;
  return out;
}

class Found {
  ref: MoRef | null = null;
  error: PluginError | null = null;
}

function findIn(vim: Vim, dc: MoRef, key: string, by: SearchBy): Found {
  const out = new Found();
  if (by == SearchBy.DnsName) {
    const all = vim.findAllByDnsName(dc, key);
    out.error = all.error;
    if (all.refs.length > 1)
      out.error = internal("more than one VM reports the DNS name " + key + " (" + all.refs.length.toString() + ")");
    else if (all.refs.length == 1) out.ref = all.refs[0];
    return out;
  }
  const one = by == SearchBy.Uuid ? vim.findByUuid(dc, key) : vim.findByIp(dc, key);
  out.error = one.error;
  out.ref = one.ref;
  return out;
}

class Datacenters {
  refs: MoRef[] = [];
  error: PluginError | null = null;
}

/** The configured datacenters (by path, or `Datacenter:<moid>`), or every one when none is configured. */
function datacenters(vim: Vim, vc: VCenter): Datacenters {
  const out = new Datacenters();
  if (vc.datacenters.length == 0) {
    const all = vim.datacenters();
    out.error = all.error;
    for (let i = 0; i < all.objects.length; i++) out.refs.push(all.objects[i].obj);
    return out;
  }
  for (let i = 0; i < vc.datacenters.length; i++) {
    const name = vc.datacenters[i];
    if (name.startsWith("Datacenter:")) {
      out.refs.push(new MoRef("Datacenter", name.substring(11)));
      continue;
    }
    const found = vim.findByInventoryPath(name);
    if (found.error !== null) out.error = found.error;
    else if (found.ref === null || found.ref!.type != "Datacenter") {
      out.error = internal("datacenter " + name + " not found in vCenter " + vc.server);
    } else out.refs.push(found.ref!);
  }
  return out;
}

/** The VM's properties; no VM when it went away between the search and the read. */
export function readVm(vim: Vim, vc: VCenter, ref: MoRef): VmLookup {
  const out = new VmLookup();
  const got = vim.properties([ref], "VirtualMachine", VM_PATHS);
  if (got.error !== null) {
    out.error = got.error;
    return out;
  }
  if (got.objects.length == 0) return out;
  out.vm = vmOf(vim, vc, ref, got.objects[0]);
  return out;
}

function vmOf(vim: Vim, vc: VCenter, ref: MoRef, o: ObjectContent): Vm {
  const vm = new Vm(vim, vc, ref);
  vm.uuid = o.propText("summary.config.uuid").toLowerCase();
  vm.numCpu = I32.parseInt(o.propText("summary.config.numCpu"));
  vm.memoryMB = I32.parseInt(o.propText("summary.config.memorySizeMB"));
  vm.guestId = o.propText("summary.config.guestId");
  vm.powerState = o.propText("runtime.powerState");
  vm.host = MoRef.of(o.prop("runtime.host"));
  vm.resourcePool = MoRef.of(o.prop("resourcePool"));
  vm.hostName = o.propText("guest.hostName");
  const net = o.prop("guest.net");
  if (net !== null) {
    const infos = net.childrenNamed("GuestNicInfo");
    for (let i = 0; i < infos.length; i++) {
      const nic = new Nic();
      nic.network = infos[i].childText("network");
      const id = infos[i].childText("deviceConfigId").trimStart().trimEnd();
      nic.deviceConfigId = id.length == 0 ? 0 : I32.parseInt(id);
      const ips = infos[i].childrenNamed("ipAddress");
      for (let k = 0; k < ips.length; k++) nic.ips.push(ips[k].text.trimStart().trimEnd());
      vm.nics.push(nic);
    }
  }
  return vm;
}

export function notFound(node: Node): PluginError {
  const id = node.providerID != "" ? node.providerID : node.systemUUID != "" ? "system UUID " + node.systemUUID : "";
  return instanceNotFound("no VM for node " + node.name + (id != "" ? " (" + id + ")" : ""));
}
