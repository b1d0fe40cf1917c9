// Node addresses from what VMware Tools reports (guest.hostName, guest.net), chosen as cloud-provider-vsphere's
// DiscoverNode chooses them: the host name as Hostname; then, for each IP family in the vCenter's priority order, one
// InternalIP and one ExternalIP among the VM's NIC addresses (loopback, link-local and unspecified ones left out):
// the first in a configured subnet, else the first on the configured VM network, else (when neither rule found one)
// simply the first, each list first cleared of the configured exclusion subnets. Not done: upstream's preference for
// addresses that cloud-init's guestinfo.metadata configured statically (the README says so).
import { Cidr, isIPv4Mapped, NodeAddress, NodeAddressType, parseIP } from "@wasm-ccm/plugin-sdk";
import { NodesConfig } from "./config";
import { Nic } from "./vms";

class Candidate {
  address: string;
  ip: Uint8Array;
  network: string;

  constructor(address: string, ip: Uint8Array, network: string) {
    this.address = address;
    this.ip = ip;
    this.network = network;
  }
}

export class Addresses {
  addresses: NodeAddress[] = [];
  /** Why no address could be chosen; "" when addresses were. */
  error: string = "";
}

export function discoverAddresses(hostName: string, nics: Nic[], families: string[], cfg: NodesConfig): Addresses {
  const out = new Addresses();
  if (hostName != "") add(out.addresses, NodeAddressType.Hostname, hostName);
  const vnics: Nic[] = [];
  for (let i = 0; i < nics.length; i++) if (nics[i].deviceConfigId != -1) vnics.push(nics[i]);
  if (cfg.internalNetworkName != "" && cfg.externalNetworkName != "" && !hasNetwork(vnics, cfg)) {
    out.error =
      "unable to find suitable IP address for node: no NIC on network " +
      cfg.internalNetworkName +
      " or " +
      cfg.externalNetworkName;
    return out;
  }
  const candidates: Candidate[] = [];
  for (let i = 0; i < vnics.length; i++) {
    for (let k = 0; k < vnics[i].ips.length; k++) {
      const ip = parseIP(vnics[i].ips[k]);
      if (ip !== null && !isLocalOnly(ip)) candidates.push(new Candidate(vnics[i].ips[k], ip, vnics[i].network));
    }
  }
  if (candidates.length == 0) {
    out.error = "unable to find suitable IP address for node after filtering out localhost IPs";
    return out;
  }
  for (let f = 0; f < families.length; f++) {
    const found = discoverFamily(candidates, families[f], cfg);
    if (found[0] === null && found[1] === null) {
      out.error = "unable to find suitable IP address for node with IP family " + families.join(",");
      return out;
    }
    if (found[0] !== null) add(out.addresses, NodeAddressType.InternalIP, found[0]!.address);
    if (found[1] !== null) add(out.addresses, NodeAddressType.ExternalIP, found[1]!.address);
  }
  return out;
}

/** [internal, external] of one family (upstream's discoverIPs). */
function discoverFamily(all: Candidate[], family: string, cfg: NodesConfig): Array<Candidate | null> {
  const ofFamily: Candidate[] = [];
  for (let i = 0; i < all.length; i++) {
    if (isIPv4Mapped(all[i].ip) == (family == "ipv4")) ofFamily.push(all[i]);
  }
  const internals = excluding(ofFamily, cfg.excludeInternalSubnets);
  const externals = excluding(ofFamily, cfg.excludeExternalSubnets);
  let internal: Candidate | null = null;
  let external: Candidate | null = null;
  if (internals.length == 0 && externals.length == 0) return [internal, external];
  internal = inSubnets(internals, cfg.internalSubnets);
  external = inSubnets(externals, cfg.externalSubnets);
  if (internal === null && cfg.internalNetworkName != "") internal = onNetwork(internals, cfg.internalNetworkName);
  if (external === null && cfg.externalNetworkName != "") external = onNetwork(externals, cfg.externalNetworkName);
  if (internal === null && external === null) {
    if (internals.length > 0) internal = internals[0];
    if (externals.length > 0) external = externals[0];
  }
  return [internal, external];
}

function excluding(list: Candidate[], subnets: Cidr[]): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < list.length; i++) {
    let excluded = false;
    for (let s = 0; s < subnets.length; s++) if (subnets[s].contains(list[i].ip)) excluded = true;
    if (!excluded) out.push(list[i]);
  }
  return out;
}

/** The first address of the first subnet (in configuration order) that holds one. */
function inSubnets(list: Candidate[], subnets: Cidr[]): Candidate | null {
  for (let s = 0; s < subnets.length; s++) {
    for (let i = 0; i < list.length; i++) if (subnets[s].contains(list[i].ip)) return list[i];
  }
  return null;
}

function onNetwork(list: Candidate[], network: string): Candidate | null {
  const want = network.toLowerCase();
  for (let i = 0; i < list.length; i++) if (list[i].network.toLowerCase() == want) return list[i];
  return null;
}

function hasNetwork(nics: Nic[], cfg: NodesConfig): bool {
  const internal = cfg.internalNetworkName.toLowerCase();
  const external = cfg.externalNetworkName.toLowerCase();
  for (let i = 0; i < nics.length; i++) {
    const n = nics[i].network.toLowerCase();
    if (n == internal || n == external) return true;
  }
  return false;
}

/** Go's IsUnspecified, IsLoopback, IsLinkLocalUnicast or IsLinkLocalMulticast (upstream's ErrOnLocalOnlyIPAddr). */
export function isLocalOnly(ip: Uint8Array): bool {
  if (isIPv4Mapped(ip)) {
    const a = ip[12];
    const b = ip[13];
    const zero = a == 0 && b == 0 && ip[14] == 0 && ip[15] == 0;
    return zero || a == 127 || (a == 169 && b == 254) || (a == 224 && b == 0 && ip[14] == 0);
  }
  let zeros = true;
  for (let i = 0; i < 15; i++) if (ip[i] != 0) zeros = false;
  if (zeros && (ip[15] == 0 || ip[15] == 1)) return true; // :: and ::1
  if (ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80) return true; // fe80::/10
  return ip[0] == 0xff && (ip[1] & 0x0f) == 0x02; // ff02::/16 and the other link-local multicast scopes
}

/** Upstream's AddToNodeAddresses: an address already listed (same type and value) is not added again. */
function add(list: NodeAddress[], type: string, address: string): void {
  for (let i = 0; i < list.length; i++) if (list[i].type == type && list[i].address == address) return;
  const a = new NodeAddress();
  a.type = type;
  a.address = address;
  list.push(a);
}
