// A recording fake of the Provider interface for controller unit tests, in the spirit of upstream's fake cloud:
// every call is recorded by name, and knobs set answers, errors and delays. End-to-end tests use the real
// devcloud plugin instead.
import type {
  Clusters,
  InstanceMetadata,
  Instances,
  InstancesV2,
  InstanceStatusOutcome,
  LoadBalancer,
  LoadBalancerLookup,
  LoadBalancerStatus,
  Node,
  NodeAddress,
  NodeError,
  Provider,
  Route,
  Routes,
  Service,
  Zone,
  Zones,
} from '../../host/src/cloudprovider/index.ts';
import { scriptedCapability } from './scripted-capability.ts';

export interface FakeCall {
  method: string;
  args: unknown[];
}

export interface FakeProviderOptions {
  name?: string;
  capabilities?: ('instancesV2' | 'instances' | 'loadBalancer' | 'routes' | 'zones' | 'clusters')[];
}

export class FakeProvider implements Provider {
  readonly calls: FakeCall[] = [];
  readonly name: string;
  private readonly caps: Set<string>;
  /** per instance (providerID or node name) knobs */
  exists = new Map<string, boolean>();
  shutdown = new Map<string, boolean>();
  metadata = new Map<string, InstanceMetadata>();
  /** method -> error to reject with (once consumed if `errorsOnce`). */
  errors = new Map<string, Error>();
  errorsOnce = true;
  delayMs = 0;
  /** With it, InstancesV2 has the batched methods of ABI 1.5, recorded as instance-*-batch with the node names. */
  batched = false;
  /** With `batched`, InstancesV2 also has ABI 1.6's instanceStatusBatch (instance-status-batch) unless this is off. */
  statusBatched = true;
  /** Per node (providerID or name): the error a batched call answers for it, once. */
  nodeErrors = new Map<string, NodeError>();
  balancers = new Map<string, { status: LoadBalancerStatus; nodes: string[]; service: Service }>();
  routeTable: Route[] = [];
  externalIP = '192.0.2.10';

  constructor(options: FakeProviderOptions = {}) {
    this.name = options.name ?? 'fake';
    this.caps = new Set(options.capabilities ?? ['instancesV2', 'loadBalancer', 'routes']);
  }

  /** Records the call, waits the delay, and throws the configured error. */
  private async enter(method: string, ...args: unknown[]): Promise<void> {
    this.calls.push({ method, args });
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const err = this.errors.get(method);
    if (err) {
      if (this.errorsOnce) this.errors.delete(method);
      throw err;
    }
  }

  /** A method no knob scripts is recorded under its ABI name, then rejects (UnscriptedMethodError). */
  private readonly unscripted = (method: string, request: unknown): Promise<void> => this.enter(method, request);

  callNames(): string[] {
    return this.calls.map((c) => c.method);
  }

  private key(node: Node): string {
    return node.providerID !== '' ? node.providerID : node.name;
  }

  providerName(): string {
    return this.name;
  }
  hasClusterID(): boolean {
    return true;
  }

  instancesV2(): InstancesV2 | undefined {
    if (!this.caps.has('instancesV2')) return undefined;
    return scriptedCapability(
      'instancesV2',
      {
        instanceExists: async (node) => {
          await this.enter('instance-exists', node);
          return this.exists.get(this.key(node)) ?? true;
        },
        instanceShutdown: async (node) => {
          await this.enter('instance-shutdown', node);
          return this.shutdown.get(this.key(node)) ?? false;
        },
        instanceMetadata: async (node) => {
          await this.enter('instance-metadata', node);
          return this.metadataFor(this.key(node));
        },
        ...(this.batched ? this.batchMethods() : {}),
      },
      this.unscripted,
    );
  }

  private batchMethods(): Partial<InstancesV2> {
    const answer = async <T>(method: string, nodes: Node[], ok: (node: Node) => T) => {
      await this.enter(
        method,
        nodes.map((n) => n.name),
      );
      return nodes.map((node) => {
        const error = this.nodeErrors.get(this.key(node));
        this.nodeErrors.delete(this.key(node));
        return { ok: ok(node), error: error ?? { code: '' as const, message: '', retryAfterSeconds: 0 } };
      });
    };
    return {
      instanceExistsBatch: (nodes) =>
        answer('instance-exists-batch', nodes, (n) => ({ exists: this.exists.get(this.key(n)) ?? true })),
      instanceShutdownBatch: (nodes) =>
        answer('instance-shutdown-batch', nodes, (n) => ({ shutdown: this.shutdown.get(this.key(n)) ?? false })),
      instanceMetadataBatch: (nodes) => answer('instance-metadata-batch', nodes, (n) => this.metadataFor(this.key(n))),
      ...(this.statusBatched ? { instanceStatusBatch: (nodes: Node[]) => this.statusBatch(answer, nodes) } : {}),
    };
  }

  // A node error goes to the exists part; shutdown is answered only where the instance exists.
  private async statusBatch(
    answer: <T>(method: string, nodes: Node[], ok: (node: Node) => T) => Promise<{ ok: T; error: NodeError }[]>,
    nodes: Node[],
  ): Promise<InstanceStatusOutcome[]> {
    const exists = await answer('instance-status-batch', nodes, (n) => ({
      exists: this.exists.get(this.key(n)) ?? true,
    }));
    const none = { code: '' as const, message: '', retryAfterSeconds: 0 };
    return exists.map((e, i) => {
      const asked = e.error.code === '' && e.ok.exists;
      const shutdown = asked && (this.shutdown.get(this.key(nodes[i]!)) ?? false);
      return { exists: e, shutdown: { ok: { shutdown }, error: none } };
    });
  }

  private metadataFor(key: string): InstanceMetadata {
    const m = this.metadata.get(key);
    if (m) return m;
    const id = key.replace(/^.*:\/\//, '');
    return {
      providerID: `${this.name}://${id}`,
      instanceType: 'fake.small',
      nodeAddresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      zone: 'fake-zone',
      region: 'fake-region',
      additionalLabels: {},
    };
  }

  instances(): Instances | undefined {
    if (!this.caps.has('instances')) return undefined;
    const addresses = async (key: string): Promise<NodeAddress[]> => this.metadataFor(key).nodeAddresses;
    return scriptedCapability(
      'instances',
      {
        nodeAddresses: async (name) => (await this.enter('node-addresses', name), addresses(name)),
        nodeAddressesByProviderID: async (id) => (await this.enter('node-addresses-by-provider-id', id), addresses(id)),
        instanceID: async (name) => (await this.enter('instance-id', name), name),
        instanceType: async (name) => (await this.enter('instance-type', name), this.metadataFor(name).instanceType),
        instanceTypeByProviderID: async (id) => (
          await this.enter('instance-type-by-provider-id', id),
          this.metadataFor(id).instanceType
        ),
        instanceExistsByProviderID: async (id) => (
          await this.enter('instance-exists-by-provider-id', id),
          this.exists.get(id) ?? true
        ),
        instanceShutdownByProviderID: async (id) => (
          await this.enter('instance-shutdown-by-provider-id', id),
          this.shutdown.get(id) ?? false
        ),
      },
      this.unscripted,
    );
  }

  loadBalancer(): LoadBalancer | undefined {
    if (!this.caps.has('loadBalancer')) return undefined;
    const name = (svc: Service) => `${svc.namespace}/${svc.name}/${svc.uid}`;
    return scriptedCapability(
      'loadBalancer',
      {
        getLoadBalancer: async (cluster, svc): Promise<LoadBalancerLookup> => {
          await this.enter('get', cluster, svc);
          const lb = this.balancers.get(name(svc));
          return lb ? { status: lb.status, exists: true } : { status: { ingress: [] }, exists: false };
        },
        getLoadBalancerName: async (cluster, svc) => (await this.enter('get-name', cluster, svc), name(svc)),
        ensureLoadBalancer: async (cluster, svc, nodes) => {
          await this.enter('create', cluster, svc, nodes);
          const status = { ingress: [{ ip: this.externalIP, hostname: '', ipMode: '' as const, ports: [] }] };
          this.balancers.set(name(svc), { status, nodes: nodes.map((n) => n.name).sort(), service: svc });
          return status;
        },
        updateLoadBalancer: async (cluster, svc, nodes) => {
          await this.enter('update', cluster, svc, nodes);
          const lb = this.balancers.get(name(svc));
          if (lb) lb.nodes = nodes.map((n) => n.name).sort();
        },
        ensureLoadBalancerDeleted: async (cluster, svc) => {
          await this.enter('delete', cluster, svc);
          this.balancers.delete(name(svc));
        },
      },
      this.unscripted,
    );
  }

  routes(): Routes | undefined {
    if (!this.caps.has('routes')) return undefined;
    return scriptedCapability(
      'routes',
      {
        listRoutes: async (cluster) => (
          await this.enter('list-routes', cluster),
          this.routeTable.map((r) => ({ ...r }))
        ),
        createRoute: async (cluster, nameHint, route) => {
          await this.enter('create-route', cluster, nameHint, route);
          this.routeTable.push({ ...route, name: `${cluster}-${nameHint}-${route.destinationCIDR}` });
        },
        deleteRoute: async (cluster, route) => {
          await this.enter('delete-route', cluster, route);
          this.routeTable = this.routeTable.filter((r) => r.name !== route.name);
        },
      },
      this.unscripted,
    );
  }

  zones(): Zones | undefined {
    if (!this.caps.has('zones')) return undefined;
    const zone = (key: string): Zone => {
      const m = this.metadataFor(key);
      return { failureDomain: m.zone, region: m.region };
    };
    return scriptedCapability(
      'zones',
      {
        getZone: async () => (await this.enter('get-zone'), { failureDomain: 'fake-zone', region: 'fake-region' }),
        getZoneByProviderID: async (id) => (await this.enter('get-zone-by-provider-id', id), zone(id)),
        getZoneByNodeName: async (name) => (await this.enter('get-zone-by-node-name', name), zone(name)),
      },
      this.unscripted,
    );
  }

  clusters(): Clusters | undefined {
    if (!this.caps.has('clusters')) return undefined;
    return scriptedCapability(
      'clusters',
      {
        listClusters: async () => (await this.enter('list-clusters'), ['kubernetes']),
        master: async (cluster) => (await this.enter('master', cluster), '127.0.0.1'),
      },
      this.unscripted,
    );
  }
}
