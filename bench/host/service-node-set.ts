// Main-thread CPU of the service controller's node-set work, without a control plane: real informers fed by an
// in-memory list/watch, a balancer that serializes each request as the Wasm provider does (JSON.stringify +
// TextEncoder), and a client/event sink that answer at once. Prints CPU ms per phase:
//   burst     B node adds on top of the listed nodes, a nodeSync after each (no Services ensured yet)
//   ensure    S Services ensured (syncService, --workers at a time)
//   idle      K nodeSyncs with nothing changed
//   churn     one node status change (not affecting any load balancer), then one ensure of every Service
//   add       one node added, then one nodeSync (updates every Service)
//
//   node bench/host/service-node-set.ts [--nodes 1000] [--burst 200] [--services 300] [--idle 100] [--workers 10]
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import type { LoadBalancer } from '../../host/src/cloudprovider/index.ts';
import type { WireNode, WireService } from '../../host/src/controllers/framework/wire-objects.ts';
import { ServiceController } from '../../host/src/controllers/service/service-controller.ts';
import type { KubeClient } from '../../host/src/kube/client/client.ts';
import type { WatchEvent } from '../../host/src/kube/client/watch.ts';
import type { KubeObject } from '../../host/src/kube/client/wire.ts';
import type { EventJson } from '../../host/src/kube/events/correlator.ts';
import { EventRecorder } from '../../host/src/kube/events/recorder.ts';
import { Informer } from '../../host/src/kube/informer/informer.ts';
import type { ListerWatcher } from '../../host/src/kube/informer/list-watch.ts';
import { silentLogger } from '../../host/src/log/logger.ts';
import { jsonPayload } from '../../host/src/abi/index.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    burst: { type: 'string', default: '200' },
    services: { type: 'string', default: '300' },
    idle: { type: 'string', default: '100' },
    workers: { type: 'string', default: '10' },
  },
});
const N = Number(values.nodes);
const B = Number(values.burst);
const S = Number(values.services);
const K = Number(values.idle);
const W = Number(values.workers);

/** A list/watch over fixed items whose watch yields what push() is given. */
class MemoryListWatch implements ListerWatcher {
  private readonly pending: WatchEvent[] = [];
  private wake: (() => void) | undefined;
  private readonly items: KubeObject[];
  constructor(items: KubeObject[]) {
    this.items = items;
  }

  list(): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    return Promise.resolve({ items: this.items, resourceVersion: '1' });
  }

  watch(): Promise<AsyncIterable<WatchEvent>> {
    return Promise.resolve(this.events());
  }

  private async *events(): AsyncGenerator<WatchEvent> {
    for (;;) {
      const event = this.pending.shift();
      if (event) yield event;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Resolves once the informer has applied the event. */
  async push(event: WatchEvent): Promise<void> {
    this.pending.push(event);
    this.wake?.();
    this.wake = undefined;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function node(i: number): WireNode {
  const name = `node-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `0b7d4e1f-9a2b-4c3d-8e5f-${String(i).padStart(12, '0')}`,
      resourceVersion: '1',
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
        'node.kubernetes.io/instance-type': 'dc.large',
        'topology.kubernetes.io/region': 'dc-east-1',
        'topology.kubernetes.io/zone': 'dc-east-1a',
        type: 'kwok',
      },
      annotations: {
        'kwok.x-k8s.io/node': 'fake',
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { providerID: `devcloud://i-${String(i).padStart(16, '0')}` },
    status: {
      addresses: [
        { type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: name },
      ],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function service(i: number): WireService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: `svc-${i}`,
      namespace: 'bench',
      uid: `3f2a9c1e-0b7d-4e1f-9a2b-${String(i).padStart(12, '0')}`,
      finalizers: ['service.kubernetes.io/load-balancer-cleanup'],
    },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30000 + i }] },
    status: { loadBalancer: { ingress: [{ ip: '198.18.0.1', ipMode: 'VIP' }] } },
  };
}

// What LoadedPlugin.call does with a request: its payload written into the instance's channel.
const channel = Buffer.alloc(64 << 20);
let bytes = 0;
const serialize = (request: unknown): void => {
  const payload = jsonPayload(request);
  if (typeof payload === 'string') bytes += channel.write(payload);
  else {
    channel.set(payload);
    bytes += payload.byteLength;
  }
};
const balancer: LoadBalancer = {
  getLoadBalancer: () => Promise.resolve({ exists: true, status: { ingress: [] } }),
  getLoadBalancerName: () => Promise.resolve('lb'),
  ensureLoadBalancer: (clusterName, service, nodes) => {
    serialize({ clusterName, service, nodes });
    return Promise.resolve({ ingress: [{ ip: '198.18.0.1', hostname: '', ipMode: 'VIP', ports: [] }] });
  },
  updateLoadBalancer: (clusterName, service, nodes) => {
    serialize({ clusterName, service, nodes });
    return Promise.resolve();
  },
  ensureLoadBalancerDeleted: () => Promise.resolve(),
};
const client = { patch: (_path: string, body: unknown) => Promise.resolve(body) } as unknown as KubeClient;
const events = new Map<string, EventJson>();
const recorder = new EventRecorder({
  sink: {
    create: (e) => (events.set(`${e.metadata.namespace}/${e.metadata.name}`, e), Promise.resolve(e)),
    patch: (ns, name, patch) => Promise.resolve({ ...events.get(`${ns}/${name}`)!, ...patch }),
  },
  component: 'bench',
});

const nodeLW = new MemoryListWatch(Array.from({ length: N - B }, (_, i) => node(i)));
const serviceLW = new MemoryListWatch(Array.from({ length: S }, (_, i) => service(i)));
const nodes = new Informer<WireNode>({ name: 'nodes', listWatcher: nodeLW });
const services = new Informer<WireService>({ name: 'services', listWatcher: serviceLW });
const controller = new ServiceController({
  client,
  services,
  nodes,
  balancer,
  clusterName: 'kubernetes',
  recorder,
  logger: silentLogger,
  registry: new Registry(),
  workers: W,
  leaseFresh: () => true,
});
nodes.start();
services.start();
await Promise.all([nodes.waitForSync(), services.waitForSync()]);
await new Promise((resolve) => setImmediate(resolve));

async function phase(name: string, fn: () => Promise<void>): Promise<void> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  await recorder.flush();
  console.log(
    `${name.padEnd(8)} cpu ${((used.user + used.system) / 1000).toFixed(0).padStart(7)} ms  wall ${(performance.now() - wall).toFixed(0).padStart(7)} ms`,
  );
}

async function ensureAll(): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < S) await controller.syncService(`bench/svc-${next++}`);
  };
  await Promise.all(Array.from({ length: W }, worker));
}

console.log(`nodes ${N} (burst ${B}), services ${S}, idle nodeSyncs ${K}, workers ${W}`);
await phase('burst', async () => {
  for (let i = N - B; i < N; i++) {
    await nodeLW.push({ type: 'ADDED', object: node(i) });
    await controller.nodeSync();
  }
});
await phase('ensure', ensureAll);
await phase('idle', async () => {
  for (let k = 0; k < K; k++) await controller.nodeSync();
});
await phase('churn', async () => {
  const changed = node(0);
  changed.status!.conditions = [{ type: 'Ready', status: 'False' }];
  await nodeLW.push({ type: 'MODIFIED', object: changed });
  await ensureAll();
});
await phase('add', async () => {
  await nodeLW.push({ type: 'ADDED', object: node(N) });
  await controller.nodeSync();
});
console.log(`serialized ${(bytes / 1e6).toFixed(1)} MB`);
await recorder.stop(true);
// The in-memory watch never ends by itself: nothing else to wait for.
process.exit(0);
