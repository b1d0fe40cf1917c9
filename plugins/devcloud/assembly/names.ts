// Cloud-side names and Kubernetes label checks. devcloud names (load balancers, routes) are 1..63 characters of
// [a-z0-9-] starting and ending with a letter or digit; Kubernetes names are longer and cluster names may hold
// anything, so names are sanitized and, when still too long, cut and suffixed with a hash of the unsanitized input:
// two different long inputs then differ in the suffix even when their cut prefixes are the same.

export const MAX_NAME = 63;
const HASH_DIGITS = 10;

/** FNV-1a, 64 bits, over the UTF-8 bytes of `s`: small, deterministic, and the same on every host. */
export function fnv1a64(s: string): u64 {
  const bytes = Uint8Array.wrap(String.UTF8.encode(s));
  let h: u64 = 0xcbf29ce484222325;
  for (let i = 0; i < bytes.length; i++) {
    h ^= <u64>bytes[i];
    h *= 0x100000001b3;
  }
  return h;
}

/** The top `digits` hex digits of a 64-bit value. */
export function hexPrefix(v: u64, digits: i32): string {
  const alphabet = "0123456789abcdef";
  let out = "";
  for (let i = 0; i < digits; i++) {
    const nibble = <i32>((v >> (<u64>(60 - i * 4))) & 0xf);
    out += alphabet.charAt(nibble);
  }
  return out;
}

/** Lower case; anything outside [a-z0-9-] becomes '-'; leading and trailing '-' removed. */
export function sanitize(raw: string): string {
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    let c = raw.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    const ok = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45;
    out += ok ? String.fromCharCode(c) : "-";
  }
  return trimDashes(out);
}

function trimDashes(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) == 45) start++;
  while (end > start && s.charCodeAt(end - 1) == 45) end--;
  return s.substring(start, end);
}

/**
 * A devcloud name for `raw`: sanitized, and when longer than 63 characters a prefix of it plus "-" and 10 hex digits
 * of FNV-1a(`identity`). `identity` is what makes the object unique (the unsanitized parts joined with "/").
 */
export function cloudName(raw: string, identity: string): string {
  const clean = sanitize(raw);
  if (clean.length > 0 && clean.length <= MAX_NAME) return clean;
  const suffix = hexPrefix(fnv1a64(identity), HASH_DIGITS);
  const prefix = trimDashes(clean.substring(0, MAX_NAME - HASH_DIGITS - 1));
  return prefix.length > 0 ? prefix + "-" + suffix : "x-" + suffix;
}

/** The load balancer of a Service: `<cluster>-<namespace>-<name>`, shortened as cloudName does. */
export function loadBalancerName(cluster: string, namespace: string, service: string): string {
  return cloudName(cluster + "-" + namespace + "-" + service, cluster + "/" + namespace + "/" + service);
}

/**
 * A route's name: `<cluster>-<nameHint>-<8 hex digits of the destination>`. The destination is part of it because a
 * dual-stack node gets two routes with the same hint, and a moved pod CIDR may be created before the old one is gone.
 */
export function routeName(cluster: string, nameHint: string, destination: string): string {
  const tag = hexPrefix(fnv1a64(destination), 8);
  return cloudName(cluster + "-" + nameHint + "-" + tag, cluster + "/" + nameHint + "/" + destination);
}

function isAlnum(c: i32): bool {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** A label name or value part: at most 63 of [A-Za-z0-9-_.], starting and ending alphanumeric (values may be ""). */
export function isLabelToken(s: string, allowEmpty: bool): bool {
  if (s.length == 0) return allowEmpty;
  if (s.length > 63) return false;
  if (!isAlnum(s.charCodeAt(0)) || !isAlnum(s.charCodeAt(s.length - 1))) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c != 45 && c != 95 && c != 46) return false;
  }
  return true;
}

/** A DNS-1123 subdomain: at most 253 of [a-z0-9-.], labels starting and ending alphanumeric. */
export function isDnsSubdomain(s: string): bool {
  if (s.length == 0 || s.length > 253) return false;
  const parts = s.split(".");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.length == 0 || p.length > 63) return false;
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j);
      const lowerAlnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
      if (!lowerAlnum && !(c == 45 && j > 0 && j < p.length - 1)) return false;
    }
  }
  return true;
}

/** A label key: `name` or `prefix/name` with a DNS subdomain prefix. */
export function isLabelKey(key: string): bool {
  const slash = key.indexOf("/");
  if (slash < 0) return isLabelToken(key, false);
  return isDnsSubdomain(key.substring(0, slash)) && isLabelToken(key.substring(slash + 1), false);
}

/** Kubernetes reserves kubernetes.io and k8s.io (and their subdomains) for itself; the node controller drops them. */
export function isReservedPrefix(domain: string): bool {
  return (
    domain == "kubernetes.io" || domain == "k8s.io" || domain.endsWith(".kubernetes.io") || domain.endsWith(".k8s.io")
  );
}

/** A dotted-quad IPv4 address (no leading zeros, each part 0..255). */
export function isIPv4(s: string): bool {
  const parts = s.split(".");
  if (parts.length != 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length == 0 || p.length > 3 || (p.length > 1 && p.charCodeAt(0) == 48)) return false;
    let v = 0;
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j);
      if (c < 48 || c > 57) return false;
      v = v * 10 + (c - 48);
    }
    if (v > 255) return false;
  }
  return true;
}
