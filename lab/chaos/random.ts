// The run's one source of randomness: every choice of the driver and the fault schedule comes from the seed, so a
// run with the same seed makes the same choices in the same order (what the system answers may still differ).
import { mulberry32 } from '../../devcloud/src/index.ts';

export class Random {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  /** In [0, 1). */
  float(): number {
    return this.#next();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.#next() * items.length)] as T;
  }

  /** One of `weights`' keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let r = this.#next() * entries.reduce((sum, [, w]) => sum + w, 0);
    for (const [key, w] of entries) {
      r -= w;
      if (r < 0) return key;
    }
    return entries.at(-1)![0];
  }
}
