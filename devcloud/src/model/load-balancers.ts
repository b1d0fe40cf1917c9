// Load balancers keyed by name, each holding a VIP from the pool for its whole life. A reverse index
// (instance -> LBs using it) keeps deleting an instance from touching every LB in the cloud.
import { conflict, invalid, notFound } from '../errors.ts';
import { type IpPool, PoolExhaustedError } from '../net/ip-pool.ts';
import { parseCidr } from '../net/ip.ts';
import type { Instances } from './instances.ts';
import {
  DESCRIPTION_MAX,
  isResourceName,
  MAX_BACKENDS,
  MAX_LISTENERS,
  MAX_SOURCE_RANGES,
  tagsProblem,
} from './limits.ts';
import { matchesTags, type TagFilter } from './tags.ts';
import type { Listener, LoadBalancer, LoadBalancerSpec } from './types.ts';

/** What a client sends; optional fields default to empty. */
export interface LoadBalancerInput {
  listeners: Listener[];
  backendInstanceIds: string[];
  sourceRanges?: string[];
  healthCheckNodePort?: number | null;
  tags?: Record<string, string>;
  description?: string;
}

export interface LoadBalancerCreate extends LoadBalancerInput {
  name: string;
  /** A specific VIP from the pool (like Service.spec.loadBalancerIP); omitted: the next free one. */
  vip?: string;
}

export class LoadBalancers {
  readonly #byName = new Map<string, LoadBalancer>();
  readonly #usersOf = new Map<string, Set<string>>();
  readonly #instances: Instances;
  readonly #pool: IpPool;
  readonly #changed: () => void;

  constructor(instances: Instances, vipPool: IpPool, changed: () => void) {
    this.#instances = instances;
    this.#pool = vipPool;
    this.#changed = changed;
  }

  get size(): number {
    return this.#byName.size;
  }

  get pool(): IpPool {
    return this.#pool;
  }

  get(name: string): LoadBalancer | undefined {
    return this.#byName.get(name);
  }

  require(name: string): LoadBalancer {
    const lb = this.#byName.get(name);
    if (!lb) throw notFound(`load balancer "${name}"`);
    return lb;
  }

  all(): IterableIterator<LoadBalancer> {
    return this.#byName.values();
  }

  list(tags: readonly TagFilter[]): LoadBalancer[] {
    return [...this.#byName.values()].filter((lb) => matchesTags(lb.tags, tags));
  }

  create(input: LoadBalancerCreate): LoadBalancer {
    if (!isResourceName(input.name)) {
      throw invalid('name', 'must be 1..63 characters of [a-z0-9-], starting and ending with a letter or digit');
    }
    if (this.#byName.has(input.name)) throw conflict('already_exists', `load balancer "${input.name}" already exists`);
    const spec = this.#normalize(input);
    const vip = this.#takeVip(input.vip);
    const now = new Date().toISOString();
    const lb: LoadBalancer = {
      name: input.name,
      vip,
      status: 'active',
      ...spec,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    };
    this.#byName.set(lb.name, lb);
    this.#index(lb.name, [], lb.backendInstanceIds);
    this.#changed();
    return lb;
  }

  /** Replaces the whole spec. Sending the same spec again changes nothing, not even revision. */
  update(name: string, input: LoadBalancerInput): LoadBalancer {
    const lb = this.require(name);
    const spec = this.#normalize(input);
    if (sameSpec(lb, spec)) return lb;
    this.#index(name, lb.backendInstanceIds, spec.backendInstanceIds);
    Object.assign(lb, spec);
    lb.revision++;
    lb.updatedAt = new Date().toISOString();
    this.#changed();
    return lb;
  }

  delete(name: string): LoadBalancer {
    const lb = this.require(name);
    this.#byName.delete(name);
    this.#index(name, lb.backendInstanceIds, []);
    this.#pool.release(lb.vip);
    this.#changed();
    return lb;
  }

  /** A deleted instance leaves every LB it backed, as clouds deregister deleted instances. */
  dropBackend(instanceId: string): void {
    const users = this.#usersOf.get(instanceId);
    if (!users) return;
    this.#usersOf.delete(instanceId);
    const now = new Date().toISOString();
    for (const name of users) {
      const lb = this.#byName.get(name);
      if (!lb) continue;
      lb.backendInstanceIds = lb.backendInstanceIds.filter((id) => id !== instanceId);
      lb.revision++;
      lb.updatedAt = now;
    }
    this.#changed();
  }

  restore(list: readonly LoadBalancer[]): void {
    for (const lb of list) {
      this.#byName.set(lb.name, lb);
      this.#index(lb.name, [], lb.backendInstanceIds);
      this.#pool.reserve(lb.vip);
    }
  }

  #takeVip(requested: string | undefined): string {
    if (requested === undefined) {
      try {
        return this.#pool.allocate();
      } catch (err) {
        if (err instanceof PoolExhaustedError) throw conflict('vip_pool_exhausted', `VIP ${err.message}`);
        throw err;
      }
    }
    const result = this.#pool.reserve(requested);
    if (result === 'outside')
      throw invalid('vip', `${requested} is not in the VIP pool (${this.#pool.cidrs.join(', ')})`);
    if (result === 'in-use') throw conflict('vip_in_use', `VIP ${requested} is held by another load balancer`);
    return requested;
  }

  #normalize(input: LoadBalancerInput): LoadBalancerSpec {
    if (input.listeners.length > MAX_LISTENERS) throw invalid('listeners', `at most ${MAX_LISTENERS} entries`);
    const seen = new Set<string>();
    input.listeners.forEach((l, n) => {
      const key = `${l.protocol}/${l.port}`;
      if (seen.has(key)) throw invalid(`listeners[${n}]`, `duplicate listener ${key}`);
      seen.add(key);
    });
    if (input.backendInstanceIds.length > MAX_BACKENDS) throw invalid('backendInstanceIds', `at most ${MAX_BACKENDS}`);
    const backends = new Set<string>();
    input.backendInstanceIds.forEach((id, n) => {
      if (backends.has(id)) throw invalid(`backendInstanceIds[${n}]`, `duplicate instance "${id}"`);
      if (!this.#instances.get(id)) throw invalid(`backendInstanceIds[${n}]`, `instance "${id}" does not exist`);
      backends.add(id);
    });
    const sourceRanges = input.sourceRanges ?? [];
    if (sourceRanges.length > MAX_SOURCE_RANGES) throw invalid('sourceRanges', `at most ${MAX_SOURCE_RANGES} entries`);
    sourceRanges.forEach((r, n) => {
      if (!parseCidr(r)) throw invalid(`sourceRanges[${n}]`, `"${r}" is not a CIDR (like 10.0.0.0/8 or 2001:db8::/32)`);
    });
    const tags = { ...(input.tags ?? {}) };
    const tagProblem = tagsProblem(tags);
    if (tagProblem) throw invalid('tags', tagProblem);
    const description = input.description ?? '';
    if (description.length > DESCRIPTION_MAX) throw invalid('description', `at most ${DESCRIPTION_MAX} characters`);
    return {
      listeners: input.listeners.map((l) => ({ protocol: l.protocol, port: l.port, nodePort: l.nodePort })),
      // Sorted, so the same node set in another order is the same spec (no spurious revisions).
      backendInstanceIds: [...backends].sort(),
      sourceRanges: [...sourceRanges],
      healthCheckNodePort: input.healthCheckNodePort ?? null,
      tags,
      description,
    };
  }

  #index(name: string, before: readonly string[], after: readonly string[]): void {
    for (const id of before) {
      const users = this.#usersOf.get(id);
      users?.delete(name);
      if (users?.size === 0) this.#usersOf.delete(id);
    }
    for (const id of after) {
      let users = this.#usersOf.get(id);
      if (!users) {
        users = new Set();
        this.#usersOf.set(id, users);
      }
      users.add(name);
    }
  }
}

function sameSpec(lb: LoadBalancerSpec, spec: LoadBalancerSpec): boolean {
  return (
    JSON.stringify([lb.listeners, lb.backendInstanceIds, lb.sourceRanges, lb.healthCheckNodePort, lb.description]) ===
      JSON.stringify([
        spec.listeners,
        spec.backendInstanceIds,
        spec.sourceRanges,
        spec.healthCheckNodePort,
        spec.description,
      ]) && JSON.stringify(Object.entries(lb.tags).sort()) === JSON.stringify(Object.entries(spec.tags).sort())
  );
}
