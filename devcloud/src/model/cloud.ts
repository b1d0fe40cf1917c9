// The whole simulated cloud: the resource stores wired together, plus its snapshot for persistence
// and the inventory view tests read. Everything here is synchronous and in memory.
import { IpPool } from '../net/ip-pool.ts';
import { Instances } from './instances.ts';
import { LoadBalancers } from './load-balancers.ts';
import { Routes } from './routes.ts';
import type { Instance, InstanceState, LoadBalancer, Region, Route, RouteRecord, Zone } from './types.ts';
import { Zones } from './zones.ts';

export interface CloudConfig {
  zones: readonly Zone[];
  vipPool: readonly string[];
  internalCidr: string;
}

export interface StateSnapshot {
  format: 'devcloud-state';
  version: 1;
  savedAt: string;
  instances: Instance[];
  loadBalancers: LoadBalancer[];
  routes: RouteRecord[];
}

export interface LoadBalancerInventory extends LoadBalancer {
  backends: Array<{ id: string; name: string; state: InstanceState }>;
}

export interface PoolUsage {
  cidrs: string[];
  size: number;
  used: number;
  free: number;
  allocated: string[];
}

export interface CloudInventory {
  zones: Zone[];
  regions: Region[];
  instances: Instance[];
  loadBalancers: LoadBalancerInventory[];
  routes: Route[];
  vipPool: PoolUsage;
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

export class Cloud {
  readonly zones: Zones;
  readonly instances: Instances;
  readonly loadBalancers: LoadBalancers;
  readonly routes: Routes;
  /** Called after every mutation; persistence hooks in here. */
  onChange: () => void = () => {};

  /** Throws on an invalid config (bad CIDR, overlapping pools, duplicate zones). */
  constructor(config: CloudConfig) {
    const changed = () => this.onChange();
    this.zones = new Zones(config.zones);
    this.instances = new Instances(this.zones, new IpPool([config.internalCidr]), changed);
    this.loadBalancers = new LoadBalancers(this.instances, new IpPool(config.vipPool), changed);
    this.routes = new Routes(this.instances, changed);
  }

  /** Routes to a deleted instance stay (and read as blackholes); LBs drop it as a backend. */
  deleteInstance(id: string): Instance {
    const instance = this.instances.delete(id);
    this.loadBalancers.dropBackend(id);
    return instance;
  }

  snapshot(): StateSnapshot {
    return {
      format: 'devcloud-state',
      version: 1,
      savedAt: new Date().toISOString(),
      instances: [...this.instances.all()],
      loadBalancers: [...this.loadBalancers.all()],
      routes: [...this.routes.records()],
    };
  }

  /** Loads a snapshot into an empty cloud. Throws if it does not fit this cloud's zones. */
  restore(snapshot: StateSnapshot): void {
    if (snapshot.format !== 'devcloud-state' || snapshot.version !== 1) {
      throw new Error(
        `not a devcloud state file (format ${String(snapshot.format)}, version ${String(snapshot.version)})`,
      );
    }
    for (const i of snapshot.instances) {
      if (this.zones.regionOf(i.zone) === undefined) {
        throw new Error(`instance ${i.id} is in zone "${i.zone}", which this devcloud is not configured with`);
      }
    }
    this.instances.restore(snapshot.instances);
    this.loadBalancers.restore(snapshot.loadBalancers);
    this.routes.restore(snapshot.routes);
  }

  /** Shares the live objects (cheap for the HTTP route, which serializes at once); copy before handing out. */
  inventory(): CloudInventory {
    const pool = this.loadBalancers.pool;
    const loadBalancers = [...this.loadBalancers.all()].sort(byKey((lb) => lb.name));
    return {
      zones: this.zones.zones(),
      regions: this.zones.regions(),
      instances: [...this.instances.all()].sort(byKey((i) => i.id)),
      loadBalancers: loadBalancers.map((lb) => ({
        ...lb,
        backends: lb.backendInstanceIds.map((id) => {
          const i = this.instances.get(id);
          return { id, name: i?.name ?? '', state: i?.state ?? 'terminated' };
        }),
      })),
      routes: this.routes.list({}).sort(byKey((r) => r.name)),
      vipPool: {
        cidrs: [...pool.cidrs],
        size: pool.size,
        used: pool.used,
        free: pool.size - pool.used,
        allocated: pool.allocated(),
      },
    };
  }
}
