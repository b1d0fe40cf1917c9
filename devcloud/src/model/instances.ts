// Instances, indexed by id and by name so every lookup the node controllers make is O(1).
import { randomBytes } from 'node:crypto';
import { conflict, invalid, notFound } from '../errors.ts';
import { type IpPool, PoolExhaustedError } from '../net/ip-pool.ts';
import { parseIp } from '../net/ip.ts';
import { matchesTags, type TagFilter } from './tags.ts';
import { isInstanceId, isInstanceName, isInstanceType, MAX_ADDRESSES, tagsProblem } from './limits.ts';
import { type Address, ADDRESS_TYPES, type Instance, type InstanceState } from './types.ts';
import type { Zones } from './zones.ts';

export interface InstanceSpec {
  id?: string;
  name: string;
  type?: string;
  zone?: string;
  /** Omitted: an InternalIP from the internal pool, a Hostname and an InternalDNS name are generated. */
  addresses?: Address[];
  labels?: Record<string, string>;
  state?: 'running' | 'stopped';
}

export interface InstancePatch {
  type?: string;
  addresses?: Address[];
  labels?: Record<string, string>;
}

export interface InstanceFilter {
  name?: string;
  states?: ReadonlySet<InstanceState>;
  zone?: string;
  labels?: readonly TagFilter[];
}

export type InstanceAction = 'stop' | 'start' | 'terminate';

export const DEFAULT_INSTANCE_TYPE = 'dc.small';

export class Instances {
  readonly #byId = new Map<string, Instance>();
  readonly #idByName = new Map<string, string>();
  readonly #zones: Zones;
  readonly #internal: IpPool;
  readonly #changed: () => void;

  constructor(zones: Zones, internalPool: IpPool, changed: () => void) {
    this.#zones = zones;
    this.#internal = internalPool;
    this.#changed = changed;
  }

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): Instance | undefined {
    return this.#byId.get(id);
  }

  require(id: string): Instance {
    const i = this.#byId.get(id);
    if (!i) throw notFound(`instance "${id}"`);
    return i;
  }

  getByName(name: string): Instance | undefined {
    const id = this.#idByName.get(name);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  all(): IterableIterator<Instance> {
    return this.#byId.values();
  }

  list(filter: InstanceFilter): Instance[] {
    let candidates: Instance[];
    if (filter.name !== undefined) {
      const one = this.getByName(filter.name);
      candidates = one ? [one] : [];
    } else {
      candidates = [...this.#byId.values()];
    }
    return candidates.filter(
      (i) =>
        (!filter.states || filter.states.has(i.state)) &&
        (filter.zone === undefined || i.zone === filter.zone) &&
        matchesTags(i.labels, filter.labels ?? []),
    );
  }

  create(spec: InstanceSpec): Instance {
    const id = spec.id ?? `i-${randomBytes(8).toString('hex')}`;
    if (!isInstanceId(id)) {
      throw invalid('id', 'must be lowercase letters, digits and dashes, at most 63, and not by-ids or by-names');
    }
    if (!isInstanceName(spec.name)) throw invalid('name', 'must be a DNS subdomain (lowercase, at most 253)');
    const type = spec.type ?? DEFAULT_INSTANCE_TYPE;
    if (!isInstanceType(type)) throw invalid('type', 'must be lowercase letters, digits, dots and dashes');
    const zone = spec.zone ?? this.#zones.default;
    const region = this.#zones.regionOf(zone);
    if (region === undefined) throw invalid('zone', `unknown zone "${zone}"`);
    const labels = { ...(spec.labels ?? {}) };
    const labelProblem = tagsProblem(labels);
    if (labelProblem) throw invalid('labels', labelProblem);
    if (this.#byId.has(id)) throw conflict('already_exists', `instance "${id}" already exists`);
    if (this.#idByName.has(spec.name)) throw conflict('already_exists', `an instance named "${spec.name}" exists`);

    let addresses: Address[];
    if (spec.addresses) {
      addresses = checkAddresses(spec.addresses);
      this.#reserveAddresses(addresses);
    } else {
      const ip = allocateOr409(this.#internal);
      addresses = [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: spec.name },
        { type: 'InternalDNS', address: `${spec.name}.${zone}.devcloud.internal` },
      ];
    }
    const now = new Date().toISOString();
    const instance: Instance = {
      id,
      name: spec.name,
      type,
      zone,
      region,
      addresses,
      state: spec.state ?? 'running',
      labels,
      createdAt: now,
      updatedAt: now,
    };
    this.#byId.set(id, instance);
    this.#idByName.set(instance.name, id);
    this.#changed();
    return instance;
  }

  /** stop and start are idempotent; anything but terminate on a terminated instance is a 409. */
  act(id: string, action: InstanceAction): Instance {
    const i = this.require(id);
    const target: InstanceState = action === 'stop' ? 'stopped' : action === 'start' ? 'running' : 'terminated';
    if (i.state === target) return i;
    if (i.state === 'terminated') {
      throw conflict('invalid_state', `instance "${id}" is terminated and cannot ${action}`);
    }
    i.state = target;
    i.updatedAt = new Date().toISOString();
    this.#changed();
    return i;
  }

  patch(id: string, patch: InstancePatch): Instance {
    const i = this.require(id);
    if (patch.type !== undefined && !isInstanceType(patch.type)) {
      throw invalid('type', 'must be lowercase letters, digits, dots and dashes');
    }
    const labelProblem = patch.labels ? tagsProblem(patch.labels) : null;
    if (labelProblem) throw invalid('labels', labelProblem);
    if (patch.addresses) {
      const next = checkAddresses(patch.addresses);
      this.#releaseAddresses(i.addresses);
      try {
        this.#reserveAddresses(next);
      } catch (err) {
        this.#reserveAddresses(i.addresses);
        throw err;
      }
      i.addresses = next;
    }
    if (patch.type !== undefined) i.type = patch.type;
    if (patch.labels) i.labels = { ...patch.labels };
    i.updatedAt = new Date().toISOString();
    this.#changed();
    return i;
  }

  delete(id: string): Instance {
    const i = this.require(id);
    this.#byId.delete(id);
    this.#idByName.delete(i.name);
    this.#releaseAddresses(i.addresses);
    this.#changed();
    return i;
  }

  /** Loads persisted instances; trusts their shape (we wrote them) but rebuilds indexes and the IP pool. */
  restore(list: readonly Instance[]): void {
    for (const i of list) {
      this.#byId.set(i.id, i);
      this.#idByName.set(i.name, i.id);
      for (const a of i.addresses) if (a.type === 'InternalIP') this.#internal.reserve(a.address);
    }
  }

  #reserveAddresses(addresses: readonly Address[]): void {
    const taken: string[] = [];
    for (const a of addresses) {
      if (a.type !== 'InternalIP') continue;
      if (this.#internal.reserve(a.address) === 'in-use') {
        for (const t of taken) this.#internal.release(t);
        throw conflict('address_in_use', `internal address ${a.address} is used by another instance`);
      }
      taken.push(a.address);
    }
  }

  #releaseAddresses(addresses: readonly Address[]): void {
    for (const a of addresses) if (a.type === 'InternalIP') this.#internal.release(a.address);
  }
}

function checkAddresses(addresses: readonly Address[]): Address[] {
  if (addresses.length > MAX_ADDRESSES) throw invalid('addresses', `at most ${MAX_ADDRESSES} entries`);
  return addresses.map((a, n) => {
    if (!ADDRESS_TYPES.includes(a.type))
      throw invalid(`addresses[${n}].type`, `must be one of ${ADDRESS_TYPES.join(', ')}`);
    const isIpType = a.type === 'InternalIP' || a.type === 'ExternalIP';
    if (isIpType && !parseIp(a.address))
      throw invalid(`addresses[${n}].address`, `"${a.address}" is not an IP address`);
    if (!isIpType && (a.address.length === 0 || a.address.length > 253)) {
      throw invalid(`addresses[${n}].address`, 'must be 1..253 characters');
    }
    return { type: a.type, address: a.address };
  });
}

function allocateOr409(pool: IpPool): string {
  try {
    return pool.allocate();
  } catch (err) {
    if (err instanceof PoolExhaustedError) throw conflict('address_pool_exhausted', `internal address ${err.message}`);
    throw err;
  }
}
