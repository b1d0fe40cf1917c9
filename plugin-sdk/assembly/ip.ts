// IP addresses and CIDRs as Go's net package reads them (net.ParseIP, net.ParseCIDR, IPNet.Contains), which upstream
// cloud providers filter and sort node addresses with: every address as 16 bytes (IPv4 as ::ffff:a.b.c.d, as
// net.ParseIP gives it), so that byte order compares as Go's bytes.Compare does.

/** 16 bytes, or null when `text` is not an IPv4 or IPv6 address. */
export function parseIP(text: string): Uint8Array | null {
  if (text.indexOf(":") >= 0) return parseIPv6(text);
  const v4 = parseIPv4(text);
  if (v4 === null) return null;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  for (let i = 0; i < 4; i++) out[12 + i] = v4[i];
  return out;
}

export function isIPv6(text: string): bool {
  return text.indexOf(":") >= 0;
}

function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length != 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length == 0 || p.length > 3 || (p.length > 1 && p.startsWith("0"))) return null;
    let n = 0;
    for (let k = 0; k < p.length; k++) {
      const c = p.charCodeAt(k);
      if (c < 0x30 || c > 0x39) return null;
      n = n * 10 + (c - 0x30);
    }
    if (n > 255) return null;
    out[i] = <u8>n;
  }
  return out;
}

function parseIPv6(text: string): Uint8Array | null {
  const out = new Uint8Array(16);
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]);
  const tail = halves.length == 2 ? groupsOf(halves[1]) : new Array<i32>(0);
  if (head === null || tail === null) return null;
  const total = head.length + tail.length;
  if ((halves.length == 1 && total != 8) || (halves.length == 2 && total > 7)) return null;
  for (let i = 0; i < head.length; i++) setGroup(out, i, head[i]);
  for (let i = 0; i < tail.length; i++) setGroup(out, 8 - tail.length + i, tail[i]);
  return out;
}

function setGroup(out: Uint8Array, index: i32, value: i32): void {
  out[index * 2] = <u8>(value >> 8);
  out[index * 2 + 1] = <u8>(value & 0xff);
}

/** The 16-bit groups of one side of "::" (a trailing dotted IPv4 counts as two); null when one is not valid. */
function groupsOf(text: string): i32[] | null {
  const out: i32[] = [];
  if (text.length == 0) return out;
  const parts = text.split(":");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (i == parts.length - 1 && p.indexOf(".") >= 0) {
      const v4 = parseIPv4(p);
      if (v4 === null) return null;
      out.push((<i32>v4[0] << 8) | v4[1]);
      out.push((<i32>v4[2] << 8) | v4[3]);
      continue;
    }
    if (p.length == 0 || p.length > 4) return null;
    let n = 0;
    for (let k = 0; k < p.length; k++) {
      const d = hexDigit(p.charCodeAt(k));
      if (d < 0) return null;
      n = (n << 4) | d;
    }
    out.push(n);
  }
  return out;
}

function hexDigit(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** bytes.Compare of two 16-byte addresses. */
export function compareIP(a: Uint8Array, b: Uint8Array): i32 {
  for (let i = 0; i < 16; i++) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

export class Cidr {
  /** The network address, 16 bytes. */
  ip: Uint8Array = new Uint8Array(16);
  /** Prefix length over the 16 bytes (an IPv4 /24 is 120). */
  bits: i32 = 0;
  v6: bool = false;

  contains(address: Uint8Array): bool {
    // An IPv4 network holds only IPv4 addresses and the other way round, as in Go.
    if (isIPv4Mapped(address) == this.v6) return false;
    for (let bit = 0; bit < this.bits; bit++) {
      const mask: i32 = 0x80 >> (bit & 7);
      if ((<i32>address[bit >> 3] & mask) != (<i32>this.ip[bit >> 3] & mask)) return false;
    }
    return true;
  }
}

/** Whether a 16-byte address is an IPv4 one (::ffff:a.b.c.d): Go's `ip.To4() != nil`. */
export function isIPv4Mapped(address: Uint8Array): bool {
  for (let i = 0; i < 10; i++) if (address[i] != 0) return false;
  return address[10] == 0xff && address[11] == 0xff;
}

/** "10.0.0.0/8" or "fd00::/64"; null when it is not a CIDR (net.ParseCIDR). */
export function parseCIDR(text: string): Cidr | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const ip = parseIP(text.substring(0, slash));
  const lengthText = text.substring(slash + 1);
  if (ip === null || lengthText.length == 0 || lengthText.length > 3) return null;
  let prefix = 0;
  for (let k = 0; k < lengthText.length; k++) {
    const c = lengthText.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return null;
    prefix = prefix * 10 + (c - 0x30);
  }
  const v6 = isIPv6(text.substring(0, slash));
  if (prefix > (v6 ? 128 : 32)) return null;
  const out = new Cidr();
  out.v6 = v6;
  out.bits = v6 ? prefix : 96 + prefix;
  for (let bit = 0; bit < out.bits; bit++) {
    const mask: i32 = 0x80 >> (bit & 7);
    out.ip[bit >> 3] |= <u8>(<i32>ip[bit >> 3] & mask);
  }
  return out;
}
