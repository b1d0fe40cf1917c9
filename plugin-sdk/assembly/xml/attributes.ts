// A start tag's attributes, and the check that none is given twice. The first few are compared one by one as they are
// read. A tag with more is checked once, by sorting its names: O(n log n) comparisons whatever the names are. A hash
// set would be linear only for names nobody chose: its hash is fixed and known (there is no randomness in a plugin to
// seed it), so a hostile server can find 40,000 names that share a bucket, and the set is quadratic again.

export class XmlAttribute {
  constructor(
    public qname: string,
    public value: string,
  ) {}

  /** The name without its namespace prefix. */
  get name(): string {
    return localName(this.qname);
  }
}

export function localName(qname: string): string {
  const colon = qname.indexOf(":");
  return colon < 0 ? qname : qname.substring(colon + 1);
}

/** A tag's attributes up to this many are compared with each other as they are read; a tag with more is sorted. */
export const ATTRIBUTES_COMPARED_IN_TURN: i32 = 8;

/** Whether qname is the name of one of the attributes read so far, while they are few enough to compare in turn. */
export function repeatsEarlierName(attributes: XmlAttribute[], qname: string): bool {
  const n = attributes.length;
  if (n >= ATTRIBUTES_COMPARED_IN_TURN) return false; // left to firstRepeatedName
  for (let i = 0; i < n; i++) if (attributes[i].qname == qname) return true;
  return false;
}

/**
 * The first attribute (in document order) whose name an earlier attribute has, or -1. Only the attributes past those
 * compared in turn can be one, so a tag of a few attributes costs nothing here.
 */
export function firstRepeatedName(attributes: XmlAttribute[]): i32 {
  const n = attributes.length;
  if (n <= ATTRIBUTES_COMPARED_IN_TURN) return -1;
  const order = new Array<i32>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  sorting = attributes;
  order.sort(byName); // stable: attributes of one name stay in document order
  sorting = null;
  // In each run of equal names, the second is the first repetition of that name; the earliest of those is the answer.
  let first = -1;
  for (let k = 1; k < n; k++) {
    const i = order[k];
    if ((first < 0 || i < first) && attributes[order[k - 1]].qname == attributes[i].qname) first = i;
  }
  return first;
}

// The attributes being sorted: a comparator cannot capture them (AssemblyScript has no closures).
let sorting: XmlAttribute[] | null = null;

function byName(a: i32, b: i32): i32 {
  const attributes = sorting!;
  return attributes[a].qname.localeCompare(attributes[b].qname);
}
