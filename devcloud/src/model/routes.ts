// Routes: destination CIDR -> instance. Indexed by name and by canonical destination so the
// route controller's list/create/delete stay O(1) per route at thousands of nodes.
import { conflict, invalid, notFound } from '../errors.ts';
import { canonicalCidr, hasHostBits, parseCidr } from '../net/ip.ts';
import type { Instances } from './instances.ts';
import { DESCRIPTION_MAX, isResourceName, tagsProblem } from './limits.ts';
import { matchesTags, type TagFilter } from './tags.ts';
import type { Route, RouteRecord } from './types.ts';

export interface RouteInput {
  name: string;
  destinationCidr: string;
  targetInstanceId: string;
  description?: string;
  tags?: Record<string, string>;
}

export interface RouteFilter {
  targetInstanceId?: string;
  tags?: readonly TagFilter[];
}

export class Routes {
  readonly #byName = new Map<string, RouteRecord>();
  readonly #nameByDestination = new Map<string, string>();
  readonly #instances: Instances;
  readonly #changed: () => void;

  constructor(instances: Instances, changed: () => void) {
    this.#instances = instances;
    this.#changed = changed;
  }

  get size(): number {
    return this.#byName.size;
  }

  /** A route is a blackhole when its target is terminated or no longer exists. */
  view(r: RouteRecord): Route {
    const target = this.#instances.get(r.targetInstanceId);
    return { ...r, blackhole: !target || target.state === 'terminated' };
  }

  get(name: string): Route | undefined {
    const r = this.#byName.get(name);
    return r ? this.view(r) : undefined;
  }

  require(name: string): Route {
    const r = this.get(name);
    if (!r) throw notFound(`route "${name}"`);
    return r;
  }

  list(filter: RouteFilter): Route[] {
    const out: Route[] = [];
    for (const r of this.#byName.values()) {
      if (filter.targetInstanceId !== undefined && r.targetInstanceId !== filter.targetInstanceId) continue;
      if (!matchesTags(r.tags, filter.tags ?? [])) continue;
      out.push(this.view(r));
    }
    return out;
  }

  records(): IterableIterator<RouteRecord> {
    return this.#byName.values();
  }

  create(input: RouteInput): Route {
    if (!isResourceName(input.name)) {
      throw invalid('name', 'must be 1..63 characters of [a-z0-9-], starting and ending with a letter or digit');
    }
    const cidr = parseCidr(input.destinationCidr);
    if (!cidr) throw invalid('destinationCidr', `"${input.destinationCidr}" is not a CIDR (like 10.244.1.0/24)`);
    if (hasHostBits(cidr)) {
      throw invalid(
        'destinationCidr',
        `"${input.destinationCidr}" has host bits set; did you mean ${canonicalCidr(cidr)}?`,
      );
    }
    if (!this.#instances.get(input.targetInstanceId)) {
      throw invalid('targetInstanceId', `instance "${input.targetInstanceId}" does not exist`);
    }
    const description = input.description ?? '';
    if (description.length > DESCRIPTION_MAX) throw invalid('description', `at most ${DESCRIPTION_MAX} characters`);
    const tags = { ...(input.tags ?? {}) };
    const tagProblem = tagsProblem(tags);
    if (tagProblem) throw invalid('tags', tagProblem);
    if (this.#byName.has(input.name)) throw conflict('already_exists', `route "${input.name}" already exists`);
    const key = canonicalCidr(cidr);
    const holder = this.#nameByDestination.get(key);
    if (holder !== undefined) throw conflict('cidr_in_use', `route "${holder}" already covers ${key}`);
    const record: RouteRecord = {
      name: input.name,
      destinationCidr: input.destinationCidr,
      targetInstanceId: input.targetInstanceId,
      description,
      tags,
      createdAt: new Date().toISOString(),
    };
    this.#byName.set(record.name, record);
    this.#nameByDestination.set(key, record.name);
    this.#changed();
    return this.view(record);
  }

  delete(name: string): Route {
    const r = this.require(name);
    this.#byName.delete(name);
    const cidr = parseCidr(r.destinationCidr);
    if (cidr) this.#nameByDestination.delete(canonicalCidr(cidr));
    this.#changed();
    return r;
  }

  restore(list: readonly RouteRecord[]): void {
    for (const r of list) {
      this.#byName.set(r.name, r);
      const cidr = parseCidr(r.destinationCidr);
      if (cidr) this.#nameByDestination.set(canonicalCidr(cidr), r.name);
    }
  }
}
