// IPv4/IPv6 addresses and CIDRs as bigints: the route controller asks "is this route inside the cluster CIDR",
// and --cluster-cidr must be validated before anything starts.
import { isIPv4, isIPv6 } from 'node:net';

export type IPFamily = 'IPv4' | 'IPv6';

export interface CIDR {
  family: IPFamily;
  /** Network address (host bits cleared). */
  network: bigint;
  prefixLength: number;
  /** Canonical text, e.g. 10.244.0.0/16 or fd00::/48. */
  text: string;
}

function bitsOf(family: IPFamily): number {
  return family === 'IPv4' ? 32 : 128;
}

export function parseIP(text: string): { family: IPFamily; value: bigint } {
  if (isIPv4(text)) {
    const value = text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
    return { family: 'IPv4', value };
  }
  if (isIPv6(text)) {
    let groups: string[];
    let head = text;
    let tailV4: bigint | undefined;
    const lastColon = text.lastIndexOf(':');
    const maybeV4 = text.slice(lastColon + 1);
    if (isIPv4(maybeV4)) {
      tailV4 = parseIP(maybeV4).value;
      head = `${text.slice(0, lastColon + 1)}0:0`;
    }
    if (head.includes('::')) {
      const [left, right] = head.split('::') as [string, string];
      const l = left === '' ? [] : left.split(':');
      const r = right === '' ? [] : right.split(':');
      groups = [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
    } else {
      groups = head.split(':');
    }
    let value = groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
    if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
    return { family: 'IPv6', value };
  }
  throw new Error(`invalid IP address "${text}"`);
}

export function formatIP(family: IPFamily, value: bigint): string {
  if (family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((shift) => Number((value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart === -1) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`;
}

export function parseCIDR(text: string): CIDR {
  const slash = text.indexOf('/');
  if (slash === -1) throw new Error(`invalid CIDR "${text}" (expected address/prefix, e.g. 10.244.0.0/16)`);
  const addr = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  let ip: { family: IPFamily; value: bigint };
  try {
    ip = parseIP(addr);
  } catch {
    throw new Error(`invalid CIDR "${text}": "${addr}" is not an IP address`);
  }
  const bits = bitsOf(ip.family);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    throw new Error(`invalid CIDR "${text}": prefix length must be 0..${bits}`);
  }
  const prefixLength = Number(prefixText);
  const hostBits = BigInt(bits - prefixLength);
  const network = (ip.value >> hostBits) << hostBits;
  return { family: ip.family, network, prefixLength, text: `${formatIP(ip.family, network)}/${prefixLength}` };
}

/** True when `inner` lies entirely inside `outer` (same family). */
export function cidrContains(outer: CIDR, inner: CIDR): boolean {
  if (outer.family !== inner.family || inner.prefixLength < outer.prefixLength) return false;
  const hostBits = BigInt(bitsOf(outer.family) - outer.prefixLength);
  return inner.network >> hostBits === outer.network >> hostBits;
}

/**
 * Parses --cluster-cidr: one CIDR, or two of different families (dual-stack), comma-separated.
 * An empty string gives an empty list; the caller decides whether that is allowed.
 */
export function parseClusterCIDRs(text: string): CIDR[] {
  if (text.trim() === '') return [];
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length > 2) throw new Error(`at most two CIDRs (one per IP family) are allowed, got ${parts.length}`);
  const cidrs = parts.map(parseCIDR);
  if (cidrs.length === 2 && cidrs[0]?.family === cidrs[1]?.family) {
    throw new Error(`two CIDRs must be dual-stack (one IPv4, one IPv6), got two ${cidrs[0]?.family}`);
  }
  return cidrs;
}
