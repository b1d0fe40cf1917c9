// The Provider the controllers hold for the life of the process. Behind it, the plugin serving calls can be replaced
// at any moment: swap() redirects every call that starts afterwards to the new plugin in one synchronous step,
// calls already running finish on the plugin they started on, and that plugin is closed only once its last call
// has returned (or its drain deadline passed). Controllers never see a swap: the capability objects they captured
// at start-up dispatch to whichever plugin is current when each call begins.
import { InternalError } from '../../cloudprovider/errors.ts';
import type {
  Clusters,
  Instances,
  InstancesV2,
  LoadBalancer,
  Provider,
  Routes,
  Zones,
} from '../../cloudprovider/provider.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import type { Capability } from '../../abi/index.ts';
import type { Settled } from './settled.ts';
import type { ShadowSession } from './shadow.ts';

/** A provider plus what releases it. */
export interface ProviderHandle {
  provider: Provider;
  /** Called once, when no call is in flight on it any more. */
  close(): Promise<void>;
}

interface Slot {
  handle: ProviderHandle;
  inflight: number;
  /** Set while draining: called when inflight reaches 0. */
  onIdle: (() => void) | undefined;
}

export interface SwappableProviderOptions {
  /** What the controllers may use; swap candidates must declare each (checked by the caller before swap()). */
  serves: ReadonlySet<Capability>;
  /** Longest wait for a retired plugin's calls before it is closed anyway (default 60 s). */
  drainTimeoutMs?: number;
  logger?: Logger;
}

export class SwappableProvider implements Provider {
  readonly serves: ReadonlySet<Capability>;
  #slot: Slot;
  #shadow: ShadowSession | undefined;
  #closing: Promise<void> | undefined;
  readonly #drainTimeoutMs: number;
  readonly #log: Logger;
  readonly #retiring = new Set<Promise<void>>();
  readonly #instancesV2: InstancesV2 | undefined;
  readonly #instances: Instances | undefined;
  readonly #loadBalancer: LoadBalancer | undefined;
  readonly #routes: Routes | undefined;
  readonly #zones: Zones | undefined;
  readonly #clusters: Clusters | undefined;

  constructor(initial: ProviderHandle, options: SwappableProviderOptions) {
    this.serves = options.serves;
    this.#slot = { handle: initial, inflight: 0, onIdle: undefined };
    this.#drainTimeoutMs = options.drainTimeoutMs ?? 60_000;
    this.#log = options.logger ?? silentLogger;
    const has = (c: Capability): boolean => options.serves.has(c);
    const v2 = (p: Provider): InstancesV2 => need(p.instancesV2(), 'instancesV2');
    const legacy = (p: Provider): Instances => need(p.instances(), 'instances');
    const lb = (p: Provider): LoadBalancer => need(p.loadBalancer(), 'loadBalancer');
    const routes = (p: Provider): Routes => need(p.routes(), 'routes');
    const zones = (p: Provider): Zones => need(p.zones(), 'zones');
    const clusters = (p: Provider): Clusters => need(p.clusters(), 'clusters');
    const run = <T>(fn: (p: Provider) => Promise<T>): Promise<T> => this.#run(fn);

    this.#instancesV2 = has('instancesV2')
      ? {
          instanceExists: (node) => run((p) => v2(p).instanceExists(node)),
          instanceShutdown: (node) => run((p) => v2(p).instanceShutdown(node)),
          instanceMetadata: async (node) => {
            const result = await this.#settle(() => run((p) => v2(p).instanceMetadata(node)));
            this.#shadow?.mirror('instanceMetadata', node.name, result, (p) => v2(p).instanceMetadata(node));
            return unwrap(result);
          },
        }
      : undefined;
    this.#instances = has('instances')
      ? {
          nodeAddresses: (name) => run((p) => legacy(p).nodeAddresses(name)),
          nodeAddressesByProviderID: (id) => run((p) => legacy(p).nodeAddressesByProviderID(id)),
          instanceID: (name) => run((p) => legacy(p).instanceID(name)),
          instanceType: (name) => run((p) => legacy(p).instanceType(name)),
          instanceTypeByProviderID: (id) => run((p) => legacy(p).instanceTypeByProviderID(id)),
          instanceExistsByProviderID: (id) => run((p) => legacy(p).instanceExistsByProviderID(id)),
          instanceShutdownByProviderID: (id) => run((p) => legacy(p).instanceShutdownByProviderID(id)),
        }
      : undefined;
    this.#loadBalancer = has('loadBalancer')
      ? {
          getLoadBalancer: async (cluster, svc) => {
            const result = await this.#settle(() => run((p) => lb(p).getLoadBalancer(cluster, svc)));
            const key = `${svc.namespace}/${svc.name}`;
            this.#shadow?.mirror('getLoadBalancer', key, result, (p) => lb(p).getLoadBalancer(cluster, svc));
            return unwrap(result);
          },
          getLoadBalancerName: (cluster, svc) => run((p) => lb(p).getLoadBalancerName(cluster, svc)),
          ensureLoadBalancer: (cluster, svc, nodes) => run((p) => lb(p).ensureLoadBalancer(cluster, svc, nodes)),
          updateLoadBalancer: (cluster, svc, nodes) => run((p) => lb(p).updateLoadBalancer(cluster, svc, nodes)),
          ensureLoadBalancerDeleted: (cluster, svc) => run((p) => lb(p).ensureLoadBalancerDeleted(cluster, svc)),
        }
      : undefined;
    this.#routes = has('routes')
      ? {
          listRoutes: (cluster) => run((p) => routes(p).listRoutes(cluster)),
          createRoute: (cluster, hint, route) => run((p) => routes(p).createRoute(cluster, hint, route)),
          deleteRoute: (cluster, route) => run((p) => routes(p).deleteRoute(cluster, route)),
        }
      : undefined;
    this.#zones = has('zones')
      ? {
          getZone: () => run((p) => zones(p).getZone()),
          getZoneByProviderID: (id) => run((p) => zones(p).getZoneByProviderID(id)),
          getZoneByNodeName: (name) => run((p) => zones(p).getZoneByNodeName(name)),
        }
      : undefined;
    this.#clusters = has('clusters')
      ? {
          listClusters: () => run((p) => clusters(p).listClusters()),
          master: (cluster) => run((p) => clusters(p).master(cluster)),
        }
      : undefined;
  }

  /** The provider serving new calls. */
  get current(): Provider {
    return this.#slot.handle.provider;
  }

  /** Calls running on the current provider (for tests and /debug). */
  get inflight(): number {
    return this.#slot.inflight;
  }

  /**
   * Makes `next` serve every call from now on. Resolves once the previous provider has drained and been closed;
   * the switch itself has happened before this returns its promise.
   */
  swap(next: ProviderHandle): Promise<void> {
    if (this.#closing) throw new Error('the provider is closed');
    const old = this.#slot;
    this.#slot = { handle: next, inflight: 0, onIdle: undefined };
    const retired = this.#retire(old);
    this.#retiring.add(retired);
    void retired.finally(() => this.#retiring.delete(retired));
    return retired;
  }

  /** While set, read-only answers are repeated on the session's candidate and compared (shadow mode). */
  setShadow(session: ShadowSession | undefined): void {
    this.#shadow = session;
  }

  /** Drains and closes the current provider and any still retiring. */
  close(): Promise<void> {
    this.#shadow = undefined;
    this.#closing ??= Promise.all([this.#retire(this.#slot), ...this.#retiring]).then(() => undefined);
    return this.#closing;
  }

  providerName(): string {
    return this.current.providerName();
  }

  hasClusterID(): boolean {
    return this.current.hasClusterID();
  }

  instancesV2(): InstancesV2 | undefined {
    return this.#instancesV2;
  }

  instances(): Instances | undefined {
    return this.#instances;
  }

  loadBalancer(): LoadBalancer | undefined {
    return this.#loadBalancer;
  }

  routes(): Routes | undefined {
    return this.#routes;
  }

  zones(): Zones | undefined {
    return this.#zones;
  }

  clusters(): Clusters | undefined {
    return this.#clusters;
  }

  async #run<T>(fn: (p: Provider) => Promise<T>): Promise<T> {
    // The slot is read once, synchronously: a swap after this line does not move this call.
    const slot = this.#slot;
    slot.inflight++;
    try {
      return await fn(slot.handle.provider);
    } finally {
      slot.inflight--;
      if (slot.inflight === 0) slot.onIdle?.();
    }
  }

  async #settle<T>(fn: () => Promise<T>): Promise<Settled<T>> {
    try {
      return { ok: true, value: await fn() };
    } catch (error) {
      return { ok: false, error };
    }
  }

  async #retire(slot: Slot): Promise<void> {
    if (slot.inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<boolean>((resolve) => {
        slot.onIdle = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.#drainTimeoutMs);
      });
      const drained = await idle;
      clearTimeout(timer);
      if (!drained) {
        this.#log.warn('closing a retired plugin with calls still running', {
          inflight: slot.inflight,
          drainTimeoutMs: this.#drainTimeoutMs,
        });
      }
    }
    try {
      await slot.handle.close();
    } catch (err) {
      this.#log.warn('closing a retired plugin failed', { error: (err as Error).message });
    }
  }
}

function unwrap<T>(result: Settled<T>): T {
  if (result.ok) return result.value;
  throw result.error;
}

function need<T>(impl: T | undefined, capability: Capability): T {
  // Candidates are checked to declare every served capability before they are swapped in; this is the backstop.
  if (impl === undefined) throw new InternalError(`the current plugin does not implement ${capability}`);
  return impl;
}
