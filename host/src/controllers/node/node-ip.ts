// IP text read as upstream reads the provided-node-ip annotation and the cloud's addresses: Go's net.ParseIP as
// forked in k8s.io/utils/net (ParseIPSloppy). It differs from Node's net.isIP, which is why it exists (see
// ../README.md): IPv4 fields may have leading zeros, read as decimal ("010.001.0.1" is 10.1.0.1); IPv6 groups may
// have more than four hex digits when the value fits ("00001::"); no zone ("%eth0"); no surrounding space. An
// IPv4-mapped IPv6 address (::ffff:10.0.0.5) is the IPv4 address, as Go's 16-byte form makes it.

import { formatIP } from '../../net/cidr.ts';

/** A parsed address: its 16-byte value (IPv4 as ::ffff:a.b.c.d, as Go keeps it). */
export type GoIP = bigint;

const V4_MAPPED_PREFIX = 0xffffn << 32n;

function parseDecimalField(field: string): number | undefined {
  if (!/^[0-9]+$/.test(field)) return undefined;
  const n = Number(field);
  return n <= 255 ? n : undefined;
}

function parseIPv4(text: string): bigint | undefined {
  const fields = text.split('.');
  if (fields.length !== 4) return undefined;
  let value = 0n;
  for (const field of fields) {
    const n = parseDecimalField(field);
    if (n === undefined) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** The 16-bit groups of one side of "::"; an IPv4 tail counts as two groups. */
function parseGroups(side: string, tailMayBeIPv4: boolean): bigint[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: bigint[] = [];
  for (const [i, part] of parts.entries()) {
    if (part.includes('.')) {
      const v4 = tailMayBeIPv4 && i === parts.length - 1 ? parseIPv4(part) : undefined;
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
      continue;
    }
    if (!/^[0-9a-fA-F]+$/.test(part)) return undefined;
    const n = Number.parseInt(part, 16);
    if (n > 0xffff) return undefined;
    groups.push(BigInt(n));
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const left = parseGroups(halves[0] ?? '', !compressed);
  const right = compressed ? parseGroups(halves[1] ?? '', true) : [];
  if (left === undefined || right === undefined) return undefined;
  const given = left.length + right.length;
  // "::" stands for at least one group; without it all eight are given.
  if (compressed ? given > 7 : given !== 8) return undefined;
  const groups = [...left, ...Array<bigint>(8 - given).fill(0n), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** The address, or undefined where Go's ParseIPSloppy returns nil. */
export function parseIPSloppy(text: string): GoIP | undefined {
  const first = text.search(/[.:]/);
  if (first === -1) return undefined;
  if (text[first] === '.') {
    const v4 = parseIPv4(text);
    return v4 === undefined ? undefined : V4_MAPPED_PREFIX | v4;
  }
  return parseIPv6(text);
}

/** netutils.IsIPv6: an address with no IPv4 form. */
export function isIPv6(ip: GoIP): boolean {
  return ip >> 32n !== 0xffffn;
}

/** net.IP.IsUnspecified: 0.0.0.0 or ::. */
function isUnspecified(ip: GoIP): boolean {
  return ip === 0n || ip === V4_MAPPED_PREFIX;
}

/** net.IP.String(): dotted for an address with an IPv4 form, RFC 5952 otherwise. */
export function formatGoIP(ip: GoIP): string {
  return isIPv6(ip) ? formatIP('IPv6', ip) : formatIP('IPv4', ip & 0xffffffffn);
}

export class ProvidedNodeIPError extends Error {
  readonly code = 'PROVIDED_NODE_IP';
  constructor(message: string) {
    super(message);
    this.name = 'ProvidedNodeIPError';
  }
}

/**
 * Upstream's ParseNodeIPAnnotation (component-helpers node/util/ips.go): comma-separated, nothing trimmed, one IP
 * or a dual-stack pair (two of one family refused; a pair may not hold 0.0.0.0 or ::).
 */
export function parseNodeIPAnnotation(value: string): GoIP[] {
  const ips: GoIP[] = [];
  for (const part of value.split(',')) {
    const ip = parseIPSloppy(part);
    if (ip === undefined)
      throw new ProvidedNodeIPError(`failed to parse node IP "${value}": could not parse "${part}"`);
    ips.push(ip);
  }
  const [a, b] = ips;
  if (ips.length > 2 || (a !== undefined && b !== undefined && isIPv6(a) === isIPv6(b))) {
    throw new ProvidedNodeIPError(
      `failed to parse node IP "${value}": must contain either a single IP or a dual-stack pair of IPs`,
    );
  }
  if (a !== undefined && b !== undefined && (isUnspecified(a) || isUnspecified(b))) {
    throw new ProvidedNodeIPError(
      `failed to parse node IP "${value}": dual-stack node IP cannot include '0.0.0.0' or '::'`,
    );
  }
  return ips;
}
