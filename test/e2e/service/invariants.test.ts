// The invariant checker on hand-made snapshots: every kind of drift it promises to report, and silence on a converged
// system. (Pure; it lives beside the end-to-end tests that depend on it being right.)
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { CloudInventory, Instance, LoadBalancerInventory, Route } from '../../../devcloud/src/index.ts';
import {
  BACKEND_SELECTOR_ANNOTATION,
  CA_DELETION_TAINT,
  CLEANUP_FINALIZER,
  EXCLUDE_LABEL,
  findViolations,
} from '../../../lab/ccm/index.ts';

const T = '2026-01-01T00:00:00.000Z';

function instance(id: string, name: string, state: Instance['state'] = 'running'): Instance {
  return {
    id,
    name,
    type: 'dc.small',
    zone: 'z',
    region: 'r',
    addresses: [],
    state,
    labels: {},
    createdAt: T,
    updatedAt: T,
  };
}

function node(
  name: string,
  extra: { providerID?: string; labels?: Record<string, string>; podCIDRs?: string[] } = {},
): V1Node {
  return {
    metadata: { name, labels: extra.labels },
    spec: { providerID: extra.providerID ?? `devcloud://i-${name}`, podCIDRs: extra.podCIDRs },
    status: { conditions: extra.podCIDRs ? [{ type: 'NetworkUnavailable', status: 'False' }] : [] },
  };
}

function service(name: string, vip: string | undefined, annotations?: Record<string, string>): V1Service {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, finalizers: [CLEANUP_FINALIZER], annotations },
    spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] },
    status: { loadBalancer: vip ? { ingress: [{ ip: vip, ipMode: 'VIP' }] } : {} },
  };
}

function lb(svc: string, vip: string, backends: string[]): LoadBalancerInventory {
  return {
    name: `kubernetes-ns-${svc}`,
    vip,
    status: 'active',
    listeners: [{ protocol: 'TCP', port: 80, nodePort: 30080 }],
    backendInstanceIds: backends,
    sourceRanges: [],
    healthCheckNodePort: null,
    tags: { 'k8s-cluster': 'kubernetes', 'k8s-service': `ns/${svc}`, 'k8s-service-uid': `uid-${svc}` },
    description: '',
    revision: 1,
    createdAt: T,
    updatedAt: T,
    backends: [],
  };
}

function route(name: string, cidr: string, target: string, nodeName: string, blackhole = false): Route {
  return {
    name,
    destinationCidr: cidr,
    targetInstanceId: target,
    blackhole,
    description: '',
    tags: { 'k8s-cluster': 'kubernetes', 'k8s-node': nodeName },
    createdAt: T,
  };
}

function cloud(parts: Partial<CloudInventory>): CloudInventory {
  return {
    zones: [],
    regions: [],
    instances: [instance('i-a', 'a'), instance('i-b', 'b'), instance('i-c', 'c')],
    loadBalancers: [],
    routes: [],
    vipPool: { cidrs: [], size: 0, used: 0, free: 0, allocated: [] },
    ...parts,
  };
}

const nodes = [node('a', { labels: { pool: 'web' } }), node('b'), node('c', { providerID: '' })];

describe('invariant checker', () => {
  it('is silent on a converged system, including a node found by name and a label selector', () => {
    const services = [
      service('web', '198.18.0.1'),
      service('api', '198.18.0.2', { [BACKEND_SELECTOR_ANNOTATION]: 'pool=web' }),
    ];
    const inventory = cloud({
      loadBalancers: [lb('web', '198.18.0.1', ['i-a', 'i-b', 'i-c']), lb('api', '198.18.0.2', ['i-a'])],
    });
    expect(findViolations({ services, nodes }, inventory)).toEqual([]);
  });

  it('reports missing and stray load balancers, a wrong ingress and a missing finalizer', () => {
    const noFinalizer = service('web', '198.18.0.9');
    noFinalizer.metadata!.finalizers = [];
    const out = findViolations(
      { services: [noFinalizer, service('lonely', undefined)], nodes },
      cloud({ loadBalancers: [lb('web', '198.18.0.1', ['i-a', 'i-b', 'i-c']), lb('ghost', '198.18.0.3', [])] }),
    );
    expect(out).toEqual([
      "Service ns/web: status ingress [198.18.0.9], its load balancer's VIP is 198.18.0.1",
      `Service ns/web: has a load balancer but not the ${CLEANUP_FINALIZER} finalizer`,
      'Service ns/lonely: 0 load balancers in devcloud ([]), want 1',
      'load balancer kubernetes-ns-ghost (Service ns/ghost) has no Service wanting it',
    ]);
  });

  it('leaves out excluded, autoscaler-tainted, deleting and terminated-by-name nodes from the expected backends', () => {
    const set = [
      node('a', { labels: { [EXCLUDE_LABEL]: '' } }),
      {
        ...node('b'),
        spec: { providerID: 'devcloud://i-b', taints: [{ key: CA_DELETION_TAINT, effect: 'NoSchedule' }] },
      },
      { ...node('d'), metadata: { name: 'd', deletionTimestamp: new Date() } },
      node('c', { providerID: '' }),
      node('e', { labels: { [EXCLUDE_LABEL]: 'false' } }),
    ];
    const terminatedC = cloud({ instances: [instance('i-c', 'c', 'terminated')] });
    const converged = { ...terminatedC, loadBalancers: [lb('web', '198.18.0.1', ['i-e'])] };
    expect(findViolations({ services: [service('web', '198.18.0.1')], nodes: set }, converged)).toEqual([]);
    const drifted = { ...terminatedC, loadBalancers: [lb('web', '198.18.0.1', ['i-a', 'i-b'])] };
    expect(findViolations({ services: [service('web', '198.18.0.1')], nodes: set }, drifted)).toEqual([
      'Service ns/web: load balancer kubernetes-ns-web backends [i-a, i-b] lack [e (i-e)] and should not have [i-a, i-b]',
    ]);
  });

  it('reads the exclude label as Go strconv.ParseBool: only its false spellings keep a node in the set', () => {
    const set = [
      node('f', { labels: { [EXCLUDE_LABEL]: 'F' } }),
      node('z', { labels: { [EXCLUDE_LABEL]: '0' } }),
      node('up', { labels: { [EXCLUDE_LABEL]: 'False' } }),
      node('yes', { labels: { [EXCLUDE_LABEL]: 'yes' } }),
      node('t', { labels: { [EXCLUDE_LABEL]: 'True' } }),
    ];
    const converged = cloud({ loadBalancers: [lb('web', '198.18.0.1', ['i-f', 'i-up', 'i-z'])] });
    expect(findViolations({ services: [service('web', '198.18.0.1')], nodes: set }, converged)).toEqual([]);
  });

  it('wants no finalizer or ingress on Services that stopped wanting a load balancer, and ignores other classes', () => {
    const retyped = service('old', '198.18.0.4');
    retyped.spec = { type: 'ClusterIP', ports: [] };
    const deleting = service('bye', undefined);
    deleting.metadata!.deletionTimestamp = new Date();
    const classy = service('classy', undefined);
    classy.spec!.loadBalancerClass = 'example.com/other';
    expect(findViolations({ services: [retyped, deleting, classy], nodes }, cloud({}))).toEqual([
      `Service ns/old: type ClusterIP but still has ${CLEANUP_FINALIZER}`,
      'Service ns/old: type ClusterIP but still has a status ingress',
      `Service ns/bye: being deleted but still held by ${CLEANUP_FINALIZER}`,
    ]);
  });

  it('compares listeners and only looks at the namespaces in scope', () => {
    const web = service('web', '198.18.0.1');
    web.spec!.ports = [{ port: 443, protocol: 'TCP', nodePort: 30443 }];
    const other = { ...lb('x', '198.18.0.7', []), tags: { 'k8s-cluster': 'kubernetes', 'k8s-service': 'elsewhere/x' } };
    const inventory = cloud({ loadBalancers: [lb('web', '198.18.0.1', ['i-a', 'i-b', 'i-c']), other] });
    expect(findViolations({ services: [web], nodes }, inventory, { namespaces: ['ns'] })).toEqual([
      'Service ns/web: load balancer kubernetes-ns-web listeners [TCP/80->30080], ports [TCP/443->30443]',
    ]);
  });

  it('checks routes inside the cluster CIDR: missing, blackholed, stale, misdirected, and NetworkUnavailable', () => {
    const routed = [
      node('a', { podCIDRs: ['10.244.1.0/24'] }),
      node('b', { podCIDRs: ['10.244.2.0/24'] }),
      node('c', { providerID: '', podCIDRs: ['10.244.3.0/24'] }),
      { ...node('d', { podCIDRs: ['10.244.4.0/24'] }), status: { conditions: [] } },
    ];
    const inventory = cloud({
      instances: [instance('i-a', 'a'), instance('i-b', 'b'), instance('i-c', 'c'), instance('i-d', 'd')],
      routes: [
        route('r-a', '10.244.1.0/24', 'i-a', 'a', true),
        route('r-b', '10.244.2.0/24', 'i-c', 'b'),
        route('r-d', '10.244.4.0/24', 'i-d', 'd'),
        route('r-old', '10.244.9.0/24', 'i-a', 'gone'),
        route('r-out', '192.168.0.0/24', 'i-a', 'a'),
      ],
    });
    expect(
      findViolations({ services: [], nodes: routed }, inventory, {
        clusterCIDRs: ['10.244.0.0/16'],
        loadBalancers: false,
      }),
    ).toEqual([
      "node a: route r-a for 10.244.1.0/24 goes to i-a (blackhole), the node's instance is i-a",
      "node b: route r-b for 10.244.2.0/24 goes to i-c, the node's instance is i-b",
      'node c: no route for pod CIDR 10.244.3.0/24',
      'node d: routes exist but NetworkUnavailable is unset, want False',
      'route r-old for 10.244.9.0/24 (node gone) is stale',
    ]);
  });
});
