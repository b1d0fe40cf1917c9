// The clients' source ranges of a Service, as upstream's service helper reads them for a Classic ELB's group
// (clb-options.ts) and an NLB's instance rules (nlb-security-groups.ts): spec.loadBalancerSourceRanges, else the
// legacy annotation, else everywhere.
import { invalid, PluginError, Service } from "@wasm-ccm/plugin-sdk";

export const SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";

export const EVERYWHERE = "0.0.0.0/0";

/**
 * The clients' ranges: spec.loadBalancerSourceRanges, else the legacy annotation, else 0.0.0.0/0; each as its network
 * (10.1.2.3/16 is 10.1.0.0/16), as upstream's source range set holds them. IPv4 only (a Classic ELB's group and
 * an NLB's instance rules hold no IPv6 rule here).
 */
export function readClientCidrs(service: Service, into: string[]): PluginError | null {
  let ranges = service.loadBalancerSourceRanges;
  let from = "spec.loadBalancerSourceRanges";
  if (ranges.length == 0 && service.annotations.has(SOURCE_RANGES)) {
    ranges = service.annotations.get(SOURCE_RANGES).split(",");
    from = "annotation " + SOURCE_RANGES;
  }
  for (let i = 0; i < ranges.length; i++) {
    const text = ranges[i].trimStart().trimEnd();
    if (text == "") continue;
    const cidr = networkOf(text);
    if (cidr == "") return invalid(from + ': "' + text + '" is not valid: want IPv4 CIDRs such as 10.0.0.0/24');
    if (!into.includes(cidr)) into.push(cidr);
  }
  if (into.length == 0) into.push(EVERYWHERE);
  return null;
}

/** `a.b.c.d/n` as its network address and length; "" when it is no IPv4 CIDR. */
export function networkOf(text: string): string {
  const slash = text.indexOf("/");
  if (slash < 0) return "";
  const bits = digits(text.substring(slash + 1), 2);
  if (bits < 0 || bits > 32) return "";
  const octets = text.substring(0, slash).split(".");
  if (octets.length != 4) return "";
  let ip: u32 = 0;
  for (let i = 0; i < 4; i++) {
    const o = digits(octets[i], 3);
    if (o < 0 || o > 255) return "";
    ip = (ip << 8) | <u32>o;
  }
  const mask: u32 = bits == 0 ? 0 : <u32>0xffffffff << (32 - <u32>bits);
  const net = ip & mask;
  return (net >>> 24).toString() + "." + ((net >>> 16) & 255).toString() + "." + ((net >>> 8) & 255).toString() + "." + (net & 255).toString() + "/" + bits.toString();
}

/** A decimal of 1 to `max` digits, else -1. */
function digits(text: string, max: i32): i32 {
  if (text.length == 0 || text.length > max) return -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return I32.parseInt(text);
}
