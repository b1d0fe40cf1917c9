// A server's node addresses in OCCM's order (instances_addresses.go): the fixed IPs of its ACTIVE ports, accessIPv4
// and accessIPv6 as ExternalIP, metadata.hostname as Hostname, then nova's addresses network by network (sorted by
// name): floating ones and those of a public-network-name as ExternalIP, the rest as InternalIP unless
// internal-network-name names other networks; IPv6 left out when ipv6-support-disabled; finally the stable sort of
// address-sort-order. Addresses of trunk subports are not read (OCCM adds them).
import {
  Cidr,
  compareIP,
  encodeComponent,
  isIPv6,
  NodeAddress,
  NodeAddressType,
  parseCIDR,
  parseIP,
  PluginError,
} from "@wasm-ccm/plugin-sdk";
import { Api, get } from "./api";
import { Config } from "./config";
import { Server } from "./servers";
import { splitList } from "./values";

export class Port {
  id: string = "";
  /** The server the port is attached to. */
  deviceID: string = "";
  status: string = "";
  networkID: string = "";
  fixedIPs: string[] = [];
  /** The subnet of each fixed IP, index for index. */
  subnetIDs: string[] = [];
}

export class PortsResult {
  ports: Port[] = [];
  error: PluginError | null = null;
}

/** The ports whose device is the server (getAttachedPorts). */
export function attachedPorts(api: Api, serverID: string): PortsResult {
  return listPorts(api, "device_id=" + encodeComponent(serverID));
}

export function listPorts(api: Api, query: string): PortsResult {
  const out = new PortsResult();
  const answer = get(api.network, "/ports?" + query);
  if (!answer.ok) {
    out.error = answer.error;
    return out;
  }
  const list = answer.doc!.get("ports");
  for (let i = 0; i < list.length; i++) {
    const p = new Port();
    const doc = list.at(i);
    p.id = doc.get("id").asString();
    p.status = doc.get("status").asString();
    p.deviceID = doc.get("device_id").asString();
    p.networkID = doc.get("network_id").asString();
    const fixed = doc.get("fixed_ips");
    for (let k = 0; k < fixed.length; k++) {
      p.fixedIPs.push(fixed.at(k).get("ip_address").asString());
      p.subnetIDs.push(fixed.at(k).get("subnet_id").asString());
    }
    out.ports.push(p);
  }
  return out;
}

export function nodeAddresses(server: Server, ports: Port[], cfg: Config): NodeAddress[] {
  const out: NodeAddress[] = [];
  for (let i = 0; i < ports.length; i++) {
    if (ports[i].status != "ACTIVE") continue;
    const ips = ports[i].fixedIPs;
    for (let k = 0; k < ips.length; k++) {
      if (!isIPv6(ips[k]) || !cfg.ipv6Disabled) add(out, NodeAddressType.InternalIP, ips[k]);
    }
  }
  if (server.accessIPv4 != "") add(out, NodeAddressType.ExternalIP, server.accessIPv4);
  if (server.accessIPv6 != "" && !cfg.ipv6Disabled) add(out, NodeAddressType.ExternalIP, server.accessIPv6);
  if (server.hostname != "") add(out, NodeAddressType.Hostname, server.hostname);
  for (let n = 0; n < server.networks.length; n++) {
    const net = server.networks[n];
    for (let k = 0; k < net.addresses.length; k++) {
      const a = net.addresses[k];
      let kind: string;
      if (a.kind == "floating") {
        kind = NodeAddressType.ExternalIP;
      } else if (cfg.publicNetworks.includes(net.name)) {
        kind = NodeAddressType.ExternalIP;
        // A "private" network listed as public: the address is not also an InternalIP.
        remove(out, a.address);
      } else if (cfg.internalNetworks.length == 0 || cfg.internalNetworks.includes(net.name)) {
        kind = NodeAddressType.InternalIP;
      } else {
        remove(out, a.address);
        continue;
      }
      if (!isIPv6(a.address) || !cfg.ipv6Disabled) add(out, kind, a.address);
    }
  }
  if (cfg.addressSortOrder != "") sortAddresses(out, cfg.addressSortOrder);
  return out;
}

function add(list: NodeAddress[], kind: string, address: string): void {
  for (let i = 0; i < list.length; i++) {
    if (list[i].address == address && list[i].type == kind) return;
  }
  const a = new NodeAddress();
  a.type = kind;
  a.address = address;
  list.push(a);
}

function remove(list: NodeAddress[], address: string): void {
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i].address == address) list.splice(i, 1);
  }
}

/**
 * OCCM's sortNodeAddresses: a stable sort by the index of the first CIDR an address falls in (earlier CIDRs first,
 * addresses in none keep their place after them), equal-priority addresses by their bytes. Items that are not CIDRs
 * are skipped, as OCCM skips them (with a warning).
 */
function sortAddresses(list: NodeAddress[], order: string): void {
  const items = splitList(order);
  const cidrs: Cidr[] = [];
  for (let i = 0; i < items.length; i++) {
    const c = parseCIDR(items[i]);
    if (c !== null) cidrs.push(c);
  }
  // Insertion sort: stable, and AssemblyScript's sort comparators cannot see the CIDRs (no closures).
  for (let i = 1; i < list.length; i++) {
    for (let at = i; at > 0 && before(list[at], list[at - 1], cidrs); at--) {
      const moved = list[at - 1];
      list[at - 1] = list[at];
      list[at] = moved;
    }
  }
}

function before(a: NodeAddress, b: NodeAddress, cidrs: Cidr[]): bool {
  const pa = priority(a.address, cidrs);
  const pb = priority(b.address, cidrs);
  if (pa > 0 && pa == pb) return compareIP(parseIP(a.address)!, parseIP(b.address)!) < 0;
  return pa > pb;
}

function priority(address: string, cidrs: Cidr[]): i32 {
  const ip = parseIP(address);
  if (ip === null) return 0;
  for (let i = 0; i < cidrs.length; i++) {
    if (cidrs[i].contains(ip)) return cidrs.length - i;
  }
  return 0;
}
