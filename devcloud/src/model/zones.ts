// The fixed geography of the cloud: every zone belongs to exactly one region.
import type { Region, Zone } from './types.ts';

export const DEFAULT_ZONES: readonly Zone[] = [
  { name: 'dc-east-1a', region: 'dc-east-1' },
  { name: 'dc-east-1b', region: 'dc-east-1' },
  { name: 'dc-east-1c', region: 'dc-east-1' },
  { name: 'dc-west-1a', region: 'dc-west-1' },
];

export class Zones {
  readonly #regionOf = new Map<string, string>();
  readonly #zones: Zone[];

  /** Throws on an empty list or a zone listed twice. */
  constructor(zones: readonly Zone[]) {
    if (zones.length === 0) throw new Error('at least one zone is required');
    for (const z of zones) {
      if (this.#regionOf.has(z.name)) throw new Error(`zone "${z.name}" is listed twice`);
      this.#regionOf.set(z.name, z.region);
    }
    this.#zones = zones.map((z) => ({ ...z }));
  }

  get default(): string {
    return this.#zones[0]!.name;
  }

  regionOf(zone: string): string | undefined {
    return this.#regionOf.get(zone);
  }

  zones(): Zone[] {
    return this.#zones.map((z) => ({ ...z }));
  }

  regions(): Region[] {
    const byName = new Map<string, Region>();
    for (const z of this.#zones) {
      const r = byName.get(z.region) ?? { name: z.region, zones: [] };
      r.zones.push(z.name);
      byName.set(z.region, r);
    }
    return [...byName.values()];
  }
}
