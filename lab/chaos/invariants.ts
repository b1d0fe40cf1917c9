// The invariants of a chaos run. Continuously (they must always hold): never two cloud load balancers for one
// Service; never a load balancer deleted while its Service wanted it; never a cloud change by a replica that did not
// hold the Lease at that moment. After the final settle (they must hold eventually): the cloud matches the cluster
// (lab/ccm/invariants.ts: load balancers, ports, node sets, source ranges, ingress, finalizers, routes) and
// every node is where its instance says it should be.
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { Devcloud, Instance, Mutation } from '../../devcloud/src/index.ts';
import { checkInvariants } from '../ccm/index.ts';
import type { LeaseHistory } from './lease-history.ts';
import type { ServiceTimeline } from './service-timeline.ts';

export interface Violation {
  /** ms since the epoch. */
  at: number;
  kind: 'duplicate-load-balancer' | 'load-balancer-deleted-while-wanted' | 'non-leader-mutation' | 'settle';
  detail: string;
}

const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const PROVIDER_PREFIX = 'devcloud://';
/** A mutation is judged once the Lease has been read this long after it (a new holder's first renewal). */
const LEASE_LAG_MS = 1_500;

export class InvariantMonitor {
  readonly violations: Violation[] = [];
  /** Mutations judged so far, and deletions of a load balancer of a known Service among them (positive signs). */
  mutationsChecked = 0;
  loadBalancerDeletesChecked = 0;
  readonly #duplicatesSeen = new Set<string>();

  private readonly cloud: Devcloud;
  private readonly leases: LeaseHistory;
  private readonly timeline: ServiceTimeline;

  constructor(cloud: Devcloud, leases: LeaseHistory, timeline: ServiceTimeline) {
    this.cloud = cloud;
    this.leases = leases;
    this.timeline = timeline;
  }

  /** Everything that must always hold, on what happened since the last call. */
  check(): void {
    this.checkDuplicates();
    this.checkMutations();
  }

  private checkDuplicates(): void {
    const byService = new Map<string, string[]>();
    for (const lb of this.cloud.inventory().loadBalancers) {
      if (lb.tags['k8s-cluster'] !== 'kubernetes') continue;
      const key = lb.tags['k8s-service-uid'] ?? lb.tags['k8s-service'] ?? '';
      byService.set(key, [...(byService.get(key) ?? []), lb.name]);
    }
    for (const [key, names] of byService) {
      if (names.length < 2 || this.#duplicatesSeen.has(key)) continue;
      this.#duplicatesSeen.add(key);
      this.add('duplicate-load-balancer', `Service uid ${key} has ${names.length} load balancers: ${names.join(', ')}`);
    }
  }

  private checkMutations(): void {
    const all = this.cloud.mutations();
    const judgeable = this.leases.lastPollAt - LEASE_LAG_MS;
    for (; this.mutationsChecked < all.length; this.mutationsChecked++) {
      const m = all[this.mutationsChecked]!;
      if (m.at > judgeable) break;
      this.judge(m);
    }
  }

  private judge(m: Mutation): void {
    if (!this.leases.led(m.caller, m.at)) {
      const leader = this.leases.leaderAt(m.at) || 'nobody';
      this.add('non-leader-mutation', `${m.target} by ${m.caller || '(no identity)'} while ${leader} led`, m.at);
    }
    if (m.op !== 'deleteLoadBalancer') return;
    const name = decodeURIComponent(m.target.split('/').at(-1) ?? '');
    if (!this.timeline.known(name)) return;
    this.loadBalancerDeletesChecked++;
    if (this.timeline.wantedAt(name, m.at)) {
      this.add('load-balancer-deleted-while-wanted', `${m.target} by ${m.caller} while its Service wanted it`, m.at);
    }
  }

  /** Judges every mutation left (after the run, once the Lease has been read again). */
  finish(): void {
    const all = this.cloud.mutations();
    for (; this.mutationsChecked < all.length; this.mutationsChecked++) this.judge(all[this.mutationsChecked]!);
    this.checkDuplicates();
  }

  private add(kind: Violation['kind'], detail: string, at = Date.now()): void {
    this.violations.push({ at, kind, detail });
  }
}

/** Nodes against their instances: running ones initialized and untainted, terminated (or gone) ones deleted. */
export function nodeViolations(nodes: readonly V1Node[], instances: readonly Instance[]): string[] {
  const byId = new Map(instances.map((i) => [i.id, i]));
  const byName = new Map(instances.map((i) => [i.name, i]));
  const out: string[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    if (!name.startsWith('chaos-')) continue;
    const providerID = node.spec?.providerID ?? '';
    const instance = providerID.startsWith(PROVIDER_PREFIX)
      ? byId.get(providerID.slice(PROVIDER_PREFIX.length))
      : byName.get(name);
    const taints = (node.spec?.taints ?? []).map((t) => t.key);
    if (!instance || instance.state === 'terminated') {
      out.push(`node ${name}: its instance is ${instance ? 'terminated' : 'gone'} but the Node still exists`);
    } else if (instance.state === 'running') {
      if (providerID === '') out.push(`node ${name}: instance runs but the node has no providerID`);
      if (taints.includes(UNINITIALIZED)) out.push(`node ${name}: instance runs but the node is still uninitialized`);
      if (taints.includes(SHUTDOWN)) out.push(`node ${name}: instance runs but the node has the shutdown taint`);
    }
  }
  return out;
}

/** Every eventual invariant now: empty when the system has converged. */
export async function settledViolations(
  kube: KubeConfig,
  cloud: Devcloud,
  namespace: string,
  clusterCIDR: string,
): Promise<string[]> {
  const core = kube.makeApiClient(CoreV1Api);
  const [cluster, nodes] = await Promise.all([
    checkInvariants({ kube, inventory: () => cloud.inventory(), namespaces: [namespace], clusterCIDRs: [clusterCIDR] }),
    core.listNode(),
  ]);
  return [...cluster, ...nodeViolations(nodes.items, cloud.inventory().instances)];
}
