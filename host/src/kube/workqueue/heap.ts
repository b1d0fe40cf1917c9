// A binary min-heap of waiting items ordered by ready time, with the position of every entry tracked so an entry
// can be moved earlier in O(log n) when the same item is scheduled again sooner.

export interface WaitingEntry<T> {
  item: T;
  readyAt: number;
  /** Insertion order; breaks ties so items due at the same instant come out in the order they were added. */
  seq: number;
  index: number;
}

export class WaitingHeap<T> {
  private readonly entries: WaitingEntry<T>[] = [];

  get size(): number {
    return this.entries.length;
  }

  peek(): WaitingEntry<T> | undefined {
    return this.entries[0];
  }

  push(entry: WaitingEntry<T>): void {
    entry.index = this.entries.length;
    this.entries.push(entry);
    this.up(entry.index);
  }

  pop(): WaitingEntry<T> | undefined {
    const top = this.entries[0];
    if (!top) return undefined;
    const last = this.entries.pop() as WaitingEntry<T>;
    if (last !== top) {
      this.entries[0] = last;
      last.index = 0;
      this.down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restores order after `entry.readyAt` was lowered. */
  decreased(entry: WaitingEntry<T>): void {
    this.up(entry.index);
  }

  clear(): void {
    this.entries.length = 0;
  }

  private less(a: WaitingEntry<T>, b: WaitingEntry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.entries[i] as WaitingEntry<T>;
    const b = this.entries[j] as WaitingEntry<T>;
    this.entries[i] = b;
    this.entries[j] = a;
    b.index = i;
    a.index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.entries[i] as WaitingEntry<T>, this.entries[parent] as WaitingEntry<T>)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.entries[left] as WaitingEntry<T>, this.entries[smallest] as WaitingEntry<T>))
        smallest = left;
      if (right < n && this.less(this.entries[right] as WaitingEntry<T>, this.entries[smallest] as WaitingEntry<T>))
        smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
