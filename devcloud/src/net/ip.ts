// IP and CIDR parsing. Addresses become bigints so IPv4 and IPv6 share one masking path;
// node:net only answers "is this an IP", it cannot mask or canonicalize a prefix.
import { isIPv4, isIPv6 } from 'node:net';

export type IpFamily = 4 | 6;

export interface ParsedCidr {
  family: IpFamily;
  /** The address as written, as a number. */
  address: bigint;
  prefix: number;
  /** The address with host bits cleared. */
  network: bigint;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };

export function ipv4ToNumber(ip: string): number {
  const parts = ip.split('.');
  return ((Number(parts[0]) << 24) | (Number(parts[1]) << 16) | (Number(parts[2]) << 8) | Number(parts[3])) >>> 0;
}

export function numberToIpv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function ipv6ToBigInt(ip: string): bigint {
  let text = ip;
  // An embedded IPv4 tail ("::ffff:1.2.3.4") stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToNumber(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...restGroups];
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(Number.parseInt(g, 16));
  return value;
}

/** Parses an IPv4 or IPv6 address; null when it is neither. */
export function parseIp(ip: string): { family: IpFamily; value: bigint } | null {
  if (isIPv4(ip)) return { family: 4, value: BigInt(ipv4ToNumber(ip)) };
  if (isIPv6(ip)) return { family: 6, value: ipv6ToBigInt(ip) };
  return null;
}

/** Parses "addr/prefix"; null when malformed. Host bits are allowed here (callers decide). */
export function parseCidr(cidr: string): ParsedCidr | null {
  const slash = cidr.indexOf('/');
  if (slash < 0) return null;
  const ip = parseIp(cidr.slice(0, slash));
  const prefixText = cidr.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  const bits = BITS[ip.family];
  if (prefix > bits) return null;
  const hostBits = BigInt(bits - prefix);
  const network = (ip.value >> hostBits) << hostBits;
  return { family: ip.family, address: ip.value, prefix, network };
}

function formatIp(family: IpFamily, value: bigint): string {
  if (family === 4) return numberToIpv4(Number(value));
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  // Compress the longest run of zero groups (RFC 5952) so equal networks get equal keys.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** Canonical "network/prefix" text, used as an index key so "10.0.0.0/8" and "010..." forms collide. */
export function canonicalCidr(c: ParsedCidr): string {
  return `${formatIp(c.family, c.network)}/${c.prefix}`;
}

export function hasHostBits(c: ParsedCidr): boolean {
  return c.address !== c.network;
}
