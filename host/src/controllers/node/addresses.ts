// Node address rules of the cloud-node controller: the kubelet's provided node IP must be among the cloud's
// addresses and comes first; the kubelet's Hostname is kept when the cloud has none; the cloud's order is written.
import type { NodeAddress } from '../../plugin/abi/index.ts';
import type { Address, NodeLike } from './node-shape.ts';
import { formatGoIP, type GoIP, parseIPSloppy, parseNodeIPAnnotation, ProvidedNodeIPError } from './node-ip.ts';
import { ANNOTATION_PROVIDED_NODE_IP } from './well-known.ts';

export { ProvidedNodeIPError } from './node-ip.ts';

/** The IPs in the provided-node-ip annotation (one, or a dual-stack pair); throws on a malformed value. */
export function providedNodeIPs(node: NodeLike): GoIP[] | undefined {
  const raw = node.metadata?.annotations?.[ANNOTATION_PROVIDED_NODE_IP];
  return raw === undefined ? undefined : parseNodeIPAnnotation(raw);
}

/**
 * Upstream's GetNodeAddressesFromNodeIP: every cloud address equal to a provided IP first (in annotation order),
 * then every other address whose type none of them has. Throws when an IP is not among the cloud's addresses.
 */
export function preferProvidedNodeIPs(ips: readonly GoIP[], addresses: readonly Address[]): Address[] {
  const result: Address[] = [];
  const matchedTypes = new Set<string>();
  const parsed = addresses.map((a) => parseIPSloppy(a.address));
  for (const ip of ips) {
    const before = result.length;
    for (const [i, a] of addresses.entries()) {
      if (parsed[i] !== ip) continue;
      result.push({ type: a.type, address: a.address });
      matchedTypes.add(a.type);
    }
    if (result.length === before) {
      throw new ProvidedNodeIPError(
        `failed to get node address from cloud provider that matches ip: ${formatGoIP(ip)}`,
      );
    }
  }
  for (const a of addresses) {
    if (!matchedTypes.has(a.type)) result.push({ type: a.type, address: a.address });
  }
  return result;
}

/** The addresses the node's status should have given the cloud's answer, or undefined to leave them alone. */
export function desiredNodeAddresses(node: NodeLike, cloud: readonly NodeAddress[]): Address[] | undefined {
  if (cloud.length === 0) return undefined;
  let addresses: Address[] = cloud.map((a) => ({ type: a.type, address: a.address }));
  if (!addresses.some((a) => a.type === 'Hostname')) {
    for (const a of node.status?.addresses ?? []) {
      if (a.type === 'Hostname') addresses.push({ type: a.type, address: a.address });
    }
  }
  const ips = providedNodeIPs(node);
  if (ips) addresses = preferProvidedNodeIPs(ips, addresses);
  return addresses;
}

/**
 * Upstream's nodeAddressesChangeDetected, rule for rule: a different length is a change; otherwise each next
 * address is compared with the LAST current address of its type. Across types order does not count; within a type
 * it does (a reorder of two InternalIPs is written, so the first InternalIP, the node IP for most components, is
 * the cloud's). With two addresses of one type even an unchanged list counts as changed: the patch then changes
 * nothing, as upstream's does.
 */
export function nodeAddressesChanged(current: readonly Address[], next: readonly Address[]): boolean {
  if (current.length !== next.length) return true;
  const lastOfType = new Map<string, string>();
  for (const a of current) lastOfType.set(a.type, a.address);
  return next.some((a) => lastOfType.get(a.type) !== a.address);
}
