// Node address rules of the cloud-node controller: the kubelet's provided node IP must be among the cloud's
// addresses and comes first; the kubelet's Hostname is kept when the cloud has none; the cloud's order is written.
import { isIP } from 'node:net';
import type { NodeAddress } from '../../plugin/abi/index.ts';
import { parseIP } from '../../net/cidr.ts';
import type { Address, NodeLike } from './node-shape.ts';
import { ANNOTATION_PROVIDED_NODE_IP } from './well-known.ts';

export class ProvidedNodeIPError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvidedNodeIPError';
  }
}

function sameIP(a: string, b: string): boolean {
  if (isIP(a) === 0 || isIP(b) === 0) return false;
  const x = parseIP(a);
  const y = parseIP(b);
  return x.family === y.family && x.value === y.value;
}

/** The IPs in the provided-node-ip annotation (one, or two for dual-stack); throws on a malformed value. */
export function providedNodeIPs(node: NodeLike): string[] | undefined {
  const raw = node.metadata?.annotations?.[ANNOTATION_PROVIDED_NODE_IP];
  if (raw === undefined) return undefined;
  const ips = raw.split(',').map((s) => s.trim());
  if (ips.length > 2 || ips.some((ip) => isIP(ip) === 0)) {
    throw new ProvidedNodeIPError(`annotation ${ANNOTATION_PROVIDED_NODE_IP} has an invalid value "${raw}"`);
  }
  return ips;
}

/**
 * Applies the provided node IPs: cloud addresses equal to them first (in annotation order), then every other
 * address whose type none of them has. Throws when an IP is not among the cloud's addresses.
 */
export function preferProvidedNodeIPs(ips: readonly string[], addresses: readonly Address[]): Address[] {
  const result: Address[] = [];
  const matchedTypes = new Set<string>();
  for (const ip of ips) {
    const matches = addresses.filter((a) => sameIP(a.address, ip));
    if (matches.length === 0) {
      throw new ProvidedNodeIPError(`failed to get node address from cloud provider that matches ip: ${ip}`);
    }
    for (const m of matches) {
      if (!result.some((r) => r.type === m.type && r.address === m.address))
        result.push({ type: m.type, address: m.address });
      matchedTypes.add(m.type);
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
