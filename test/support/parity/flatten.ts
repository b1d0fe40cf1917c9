// Flattened snapshots: every leaf of an object becomes one `path -> JSON value` entry, so two runs compare key by
// key and a difference names the exact field. Arrays are keyed by their elements' identity (an address by type and
// value, a port by protocol and number, ...), not by index: a missing or extra element is one line that names it,
// and the order, which matters for some fields (addresses, source ranges), is one more line of its own.

/** path -> JSON text of the value there. */
export type Snapshot = Map<string, string>;

/** RFC 6901-style escaping so a label key with '/' stays one path segment. */
export function seg(s: string): string {
  return s.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Fields that identify an array element, tried in this order; the first set an element has wins. */
const IDENTITY_FIELDS: readonly (readonly string[])[] = [
  ['type', 'address'], // node addresses
  ['protocol', 'port'], // service ports, LB listeners
  ['key', 'effect'], // taints
  ['name'],
  ['type'], // conditions
  ['ip'], // LB ingress
];

export function identityOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  const o = value as Record<string, unknown>;
  const fields = IDENTITY_FIELDS.find((set) => set.every((f) => f in o));
  return fields ? fields.map((f) => String(o[f])).join(' ') : JSON.stringify(value);
}

export function flatten(out: Snapshot, prefix: string, value: unknown): void {
  if (value === null || typeof value !== 'object') {
    out.set(prefix, JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    flattenArray(out, prefix, value);
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) out.set(prefix, '{}');
  for (const [k, v] of entries) flatten(out, `${prefix}/${seg(k)}`, v);
}

function flattenArray(out: Snapshot, prefix: string, list: readonly unknown[]): void {
  if (list.length === 0) {
    out.set(prefix, '[]');
    return;
  }
  const seen = new Map<string, number>();
  const order: string[] = [];
  for (const element of list) {
    const base = identityOf(element);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const id = n === 1 ? base : `${base}#${n}`;
    order.push(id);
    const key = `${prefix}/[${seg(id)}]`;
    if (element !== null && typeof element === 'object') flatten(out, key, element);
    else out.set(key, JSON.stringify(element));
  }
  if (order.length > 1) out.set(`${prefix}/#order`, JSON.stringify(order));
}
