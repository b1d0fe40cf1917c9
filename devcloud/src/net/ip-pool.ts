// An IPv4 address allocator over one or more CIDRs. Allocation walks a cursor forward instead of
// always taking the lowest free address, so a just-released address is not handed out again at
// once (real clouds behave like this, and it keeps a deleted LB's VIP from reappearing on the next one).
import { numberToIpv4, parseCidr } from './ip.ts';

interface Range {
  cidr: string;
  first: number;
  size: number;
}

export class PoolExhaustedError extends Error {}

export class IpPool {
  readonly cidrs: readonly string[];
  readonly size: number;
  readonly #ranges: Range[];
  readonly #used = new Set<number>();
  #cursor = 0;

  /** Throws on a malformed, non-IPv4 or overlapping CIDR. */
  constructor(cidrs: readonly string[]) {
    const ranges: Range[] = [];
    for (const cidr of cidrs) {
      const c = parseCidr(cidr);
      if (!c || c.family !== 4) throw new Error(`"${cidr}" is not an IPv4 CIDR`);
      const block = 2 ** (32 - c.prefix);
      const network = Number(c.network);
      // Network and broadcast addresses are unusable except in /31 and /32 (RFC 3021).
      const range = block <= 2 ? { cidr, first: network, size: block } : { cidr, first: network + 1, size: block - 2 };
      for (const r of ranges) {
        if (range.first < r.first + r.size && r.first < range.first + range.size) {
          throw new Error(`CIDR "${cidr}" overlaps "${r.cidr}"`);
        }
      }
      ranges.push(range);
    }
    this.cidrs = [...cidrs];
    this.#ranges = ranges;
    this.size = ranges.reduce((n, r) => n + r.size, 0);
  }

  get used(): number {
    return this.#used.size;
  }

  contains(ip: string): boolean {
    return this.#indexOf(ip) !== null;
  }

  /** Takes the next free address; throws PoolExhaustedError when none is left. */
  allocate(): string {
    if (this.#used.size >= this.size) {
      throw new PoolExhaustedError(`pool ${this.cidrs.join(', ')} is exhausted (${this.size} of ${this.size} in use)`);
    }
    for (;;) {
      const n = this.#at(this.#cursor);
      this.#cursor = (this.#cursor + 1) % this.size;
      if (!this.#used.has(n)) {
        this.#used.add(n);
        return numberToIpv4(n);
      }
    }
  }

  /** Marks a specific address used. 'outside' leaves the pool untouched (such addresses are not managed). */
  reserve(ip: string): 'ok' | 'in-use' | 'outside' {
    const index = this.#indexOf(ip);
    if (index === null) return 'outside';
    const n = this.#at(index);
    if (this.#used.has(n)) return 'in-use';
    this.#used.add(n);
    return 'ok';
  }

  release(ip: string): void {
    const index = this.#indexOf(ip);
    if (index !== null) this.#used.delete(this.#at(index));
  }

  allocated(): string[] {
    return [...this.#used].sort((a, b) => a - b).map(numberToIpv4);
  }

  #at(index: number): number {
    let i = index;
    for (const r of this.#ranges) {
      if (i < r.size) return r.first + i;
      i -= r.size;
    }
    throw new RangeError(`pool index ${index} out of range`);
  }

  #indexOf(ip: string): number | null {
    const c = parseCidr(`${ip}/32`);
    if (!c || c.family !== 4) return null;
    const n = Number(c.address);
    let offset = 0;
    for (const r of this.#ranges) {
      if (n >= r.first && n < r.first + r.size) return offset + (n - r.first);
      offset += r.size;
    }
    return null;
  }
}
