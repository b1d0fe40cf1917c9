// The end state the service and route controllers must converge to, checked from the outside: what devcloud holds
// against what the cluster asks for. Written from upstream-parity.md and the devcloud plugin's documented mapping,
// not from the controllers' own helpers, so a bug in a controller rule cannot hide itself here.
// `findViolations` is pure (snapshot in, human-readable violations out); `checkInvariants` takes the snapshots;
// `expectInvariants` retries until the system has converged or fails with what is still wrong.
import { CoreV1Api, type KubeConfig, type V1Node, type V1Service } from '@kubernetes/client-node';
import type { CloudInventory, Instance, LoadBalancerInventory } from '../../devcloud/src/index.ts';
import { type CIDR, cidrContains, parseCIDR } from '../../host/src/net/cidr.ts';

export const CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
export const EXCLUDE_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
export const CA_DELETION_TAINT = 'ToBeDeletedByClusterAutoscaler';
/** The devcloud plugin's annotation narrowing a Service's backends to nodes with these labels. */
export const BACKEND_SELECTOR_ANNOTATION = 'service.beta.kubernetes.io/devcloud-backend-label-selector';
/** The devcloud plugin's ownership tags (plugins/devcloud/assembly/loadbalancer.ts, routes.ts). */
export const TAG_CLUSTER = 'k8s-cluster';
export const TAG_SERVICE = 'k8s-service';
export const TAG_UID = 'k8s-service-uid';
export const TAG_NODE = 'k8s-node';
const PROVIDER_PREFIX = 'devcloud://';

export interface InvariantScope {
  /** --cluster-name the CCM runs with (default "kubernetes"): only cloud objects tagged with it are ours. */
  clusterName?: string;
  /** --cluster-cidr values; routes are checked only when given. */
  clusterCIDRs?: readonly string[];
  /**
   * Only Services in these namespaces (and load balancers tagged with a Service in them) are compared. Tests share
   * one apiserver, and other files may leave Services behind; nodes are always cluster-wide, as the node set is.
   */
  namespaces?: readonly string[];
  /** Default true. */
  loadBalancers?: boolean;
}

export interface ClusterSnapshot {
  services: readonly V1Service[];
  nodes: readonly V1Node[];
}

export interface InvariantTarget extends InvariantScope {
  kube: KubeConfig;
  /** devcloud's inventory: the embedded handle's inventory(), or a fetch of GET /v1/admin/inventory. */
  inventory: () => CloudInventory | Promise<CloudInventory>;
}

const svcKey = (s: V1Service): string => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();
const list = (xs: readonly string[]): string => (xs.length === 0 ? '[]' : `[${xs.join(', ')}]`);

function isTerminating(obj: V1Service | V1Node): boolean {
  return obj.metadata?.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

/** Served by the CCM's service controller: type LoadBalancer without a loadBalancerClass. */
function servedType(svc: V1Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && (svc.spec.loadBalancerClass ?? '') === '';
}

/** What Go's strconv.ParseBool reads as false; every other value (true ones, and those it refuses) excludes a node. */
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The node set of upstream's service controller: not being deleted, not excluded, not leaving with the autoscaler. */
function inNodeSet(node: V1Node): boolean {
  if (isTerminating(node)) return false;
  const exclude = node.metadata?.labels?.[EXCLUDE_LABEL];
  if (exclude !== undefined && !GO_FALSE.has(exclude)) return false;
  return !(node.spec?.taints ?? []).some((t) => t.key === CA_DELETION_TAINT);
}

/** "k1=v1,k2": every requirement must hold; undefined when the annotation is not a valid selector. */
function selectorMatcher(selector: string | undefined): ((node: V1Node) => boolean) | undefined {
  if (selector === undefined) return () => true;
  const reqs = selector.split(',').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0 ? { key: part.trim() } : { key: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() };
  });
  if (reqs.some((r) => r.key === '')) return undefined;
  return (node) =>
    reqs.every((r) => {
      const have = node.metadata?.labels?.[r.key];
      return have !== undefined && (r.value === undefined || have === r.value);
    });
}

/** The devcloud instance behind a node: its providerID, else (not yet initialized) a live instance of its name. */
function instanceOf(node: V1Node, byName: ReadonlyMap<string, Instance>): string | undefined {
  const providerID = node.spec?.providerID ?? '';
  if (providerID.startsWith(PROVIDER_PREFIX)) return providerID.slice(PROVIDER_PREFIX.length);
  if (providerID !== '') return undefined;
  const inst = byName.get(node.metadata?.name ?? '');
  return inst && inst.state !== 'terminated' ? inst.id : undefined;
}

function listenersOf(svc: V1Service): string[] {
  return sorted((svc.spec?.ports ?? []).map((p) => `${p.protocol ?? 'TCP'}/${p.port}->${p.nodePort ?? 0}`));
}

function checkLoadBalancer(
  svc: V1Service,
  lb: LoadBalancerInventory,
  nodes: readonly V1Node[],
  byName: ReadonlyMap<string, Instance>,
  out: string[],
): void {
  const key = svcKey(svc);
  const uid = svc.metadata?.uid ?? '';
  if (lb.tags[TAG_UID] !== uid) {
    out.push(`Service ${key}: load balancer ${lb.name} is tagged with uid ${lb.tags[TAG_UID]}, the Service has ${uid}`);
  }
  const matches = selectorMatcher(svc.metadata?.annotations?.[BACKEND_SELECTOR_ANNOTATION]);
  if (matches === undefined) {
    out.push(`Service ${key}: annotation ${BACKEND_SELECTOR_ANNOTATION} is not a selector; cannot check backends`);
  } else {
    const expected = new Map<string, string>();
    for (const node of nodes) {
      if (!inNodeSet(node) || !matches(node)) continue;
      const id = instanceOf(node, byName);
      if (id !== undefined) expected.set(id, node.metadata?.name ?? '');
    }
    const have = new Set(lb.backendInstanceIds);
    const missing = sorted([...expected].filter(([id]) => !have.has(id)).map(([id, n]) => `${n} (${id})`));
    const extra = sorted(lb.backendInstanceIds.filter((id) => !expected.has(id)));
    if (missing.length > 0 || extra.length > 0) {
      out.push(
        `Service ${key}: load balancer ${lb.name} backends ${list(sorted(have))} lack ${list(missing)} and should not have ${list(extra)}`,
      );
    }
  }
  const wantListeners = listenersOf(svc);
  const haveListeners = sorted(lb.listeners.map((l) => `${l.protocol}/${l.port}->${l.nodePort}`));
  if (wantListeners.join() !== haveListeners.join()) {
    out.push(`Service ${key}: load balancer ${lb.name} listeners ${list(haveListeners)}, ports ${list(wantListeners)}`);
  }
  const wantRanges = (svc.spec?.loadBalancerSourceRanges ?? []).map((r) => r.trim());
  if (wantRanges.join() !== lb.sourceRanges.join()) {
    out.push(`Service ${key}: load balancer source ranges ${list(lb.sourceRanges)}, Service asks ${list(wantRanges)}`);
  }
  const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? '');
  if (ingress.length !== 1 || ingress[0] !== lb.vip) {
    out.push(`Service ${key}: status ingress ${list(ingress)}, its load balancer's VIP is ${lb.vip}`);
  }
  if (!(svc.metadata?.finalizers ?? []).includes(CLEANUP_FINALIZER)) {
    out.push(`Service ${key}: has a load balancer but not the ${CLEANUP_FINALIZER} finalizer`);
  }
}

function loadBalancerViolations(
  cluster: ClusterSnapshot,
  cloud: CloudInventory,
  clusterName: string,
  namespaces: ReadonlySet<string> | undefined,
  byName: ReadonlyMap<string, Instance>,
): string[] {
  const out: string[] = [];
  const inScope = (namespace: string): boolean => namespaces === undefined || namespaces.has(namespace);
  const ours = cloud.loadBalancers.filter(
    (lb) => lb.tags[TAG_CLUSTER] === clusterName && inScope((lb.tags[TAG_SERVICE] ?? '').split('/')[0] ?? ''),
  );
  const byService = new Map<string, LoadBalancerInventory[]>();
  for (const lb of ours) {
    const k = lb.tags[TAG_SERVICE] ?? '';
    byService.set(k, [...(byService.get(k) ?? []), lb]);
  }
  const wanted = new Set<string>();
  for (const svc of cluster.services) {
    if (!inScope(svc.metadata?.namespace ?? '')) continue;
    const key = svcKey(svc);
    const finalizer = (svc.metadata?.finalizers ?? []).includes(CLEANUP_FINALIZER);
    const ingress = svc.status?.loadBalancer?.ingress ?? [];
    if (isTerminating(svc)) {
      if (finalizer) out.push(`Service ${key}: being deleted but still held by ${CLEANUP_FINALIZER}`);
      continue;
    }
    if (svc.spec?.type === 'LoadBalancer' && !servedType(svc)) continue; // another controller's class
    if (!servedType(svc)) {
      if (finalizer) out.push(`Service ${key}: type ${svc.spec?.type} but still has ${CLEANUP_FINALIZER}`);
      if (ingress.length > 0) out.push(`Service ${key}: type ${svc.spec?.type} but still has a status ingress`);
      continue;
    }
    wanted.add(key);
    const lbs = byService.get(key) ?? [];
    if (lbs.length !== 1) {
      out.push(`Service ${key}: ${lbs.length} load balancers in devcloud (${list(lbs.map((l) => l.name))}), want 1`);
    }
    const lb = lbs[0];
    if (lb) checkLoadBalancer(svc, lb, cluster.nodes, byName, out);
  }
  for (const lb of ours) {
    const owner = lb.tags[TAG_SERVICE] ?? '';
    if (!wanted.has(owner)) out.push(`load balancer ${lb.name} (Service ${owner || '?'}) has no Service wanting it`);
  }
  return out;
}

function podCIDRsOf(node: V1Node): string[] {
  return node.spec?.podCIDRs ?? (node.spec?.podCIDR ? [node.spec.podCIDR] : []);
}

function normalizeCIDR(text: string): CIDR | undefined {
  try {
    return parseCIDR(text);
  } catch {
    return undefined;
  }
}

function routeViolations(
  cluster: ClusterSnapshot,
  cloud: CloudInventory,
  clusterName: string,
  clusterCIDRs: readonly CIDR[],
  byName: ReadonlyMap<string, Instance>,
): string[] {
  const out: string[] = [];
  const overlaps = (c: CIDR): boolean =>
    clusterCIDRs.some((cc) => cc.family === c.family && (cidrContains(cc, c) || cidrContains(c, cc)));
  // What the route controller is responsible for: routes of this cluster inside the cluster CIDR.
  const routes = new Map<string, CloudInventory['routes'][number]>();
  for (const r of cloud.routes) {
    const dest = normalizeCIDR(r.destinationCidr);
    if (r.tags[TAG_CLUSTER] !== clusterName || dest === undefined || !overlaps(dest)) continue;
    if (routes.has(dest.text)) out.push(`two routes for ${dest.text}: ${routes.get(dest.text)?.name} and ${r.name}`);
    routes.set(dest.text, r);
  }
  const expected = new Set<string>();
  for (const node of cluster.nodes) {
    const name = node.metadata?.name ?? '';
    const cidrs = podCIDRsOf(node)
      .map(normalizeCIDR)
      .filter((c): c is CIDR => c !== undefined && overlaps(c));
    if (cidrs.length === 0) continue;
    const id = instanceOf(node, byName);
    let routed = true;
    for (const cidr of cidrs) {
      expected.add(cidr.text);
      const route = routes.get(cidr.text);
      if (!route) {
        routed = false;
        out.push(`node ${name}: no route for pod CIDR ${cidr.text}${id ? '' : ' (and no devcloud instance)'}`);
      } else if (route.blackhole || route.targetInstanceId !== id) {
        routed = false;
        out.push(
          `node ${name}: route ${route.name} for ${cidr.text} goes to ${route.targetInstanceId}${route.blackhole ? ' (blackhole)' : ''}, the node's instance is ${id ?? 'none'}`,
        );
      }
    }
    const condition = node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
    if (routed && condition?.status !== 'False') {
      out.push(`node ${name}: routes exist but NetworkUnavailable is ${condition?.status ?? 'unset'}, want False`);
    }
  }
  for (const [cidr, r] of routes) {
    if (!expected.has(cidr)) out.push(`route ${r.name} for ${cidr} (node ${r.tags[TAG_NODE] ?? '?'}) is stale`);
  }
  return out;
}

/** Everything that differs between the cloud and what the cluster asks for; empty when converged. */
export function findViolations(cluster: ClusterSnapshot, cloud: CloudInventory, scope: InvariantScope = {}): string[] {
  const clusterName = scope.clusterName ?? 'kubernetes';
  const byName = new Map(cloud.instances.map((i) => [i.name, i]));
  const out: string[] = [];
  if (scope.loadBalancers ?? true) {
    const namespaces = scope.namespaces ? new Set(scope.namespaces) : undefined;
    out.push(...loadBalancerViolations(cluster, cloud, clusterName, namespaces, byName));
  }
  if (scope.clusterCIDRs && scope.clusterCIDRs.length > 0) {
    const cidrs = scope.clusterCIDRs.map((c) => parseCIDR(c));
    out.push(...routeViolations(cluster, cloud, clusterName, cidrs, byName));
  }
  return out;
}

/** Reads the cluster, then the cloud, and compares them. */
export async function checkInvariants(target: InvariantTarget): Promise<string[]> {
  const core = target.kube.makeApiClient(CoreV1Api);
  const namespaces = target.namespaces;
  const [services, nodes] = await Promise.all([
    namespaces
      ? Promise.all(namespaces.map((namespace) => core.listNamespacedService({ namespace }))).then((ls) =>
          ls.flatMap((l) => l.items),
        )
      : core.listServiceForAllNamespaces().then((l) => l.items),
    core.listNode().then((l) => l.items),
  ]);
  return findViolations({ services, nodes }, await target.inventory(), target);
}

export interface ExpectOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Waits until the invariants hold (the controllers converge asynchronously), then resolves; fails after `timeoutMs`
 * with the violations of the last check.
 */
export async function expectInvariants(target: InvariantTarget, options: ExpectOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: string[];
  for (;;) {
    try {
      last = await checkInvariants(target);
    } catch (err) {
      last = [`could not take the snapshots: ${(err as Error).message}`];
    }
    if (last.length === 0) return;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
  throw new Error(`invariants still violated after ${options.timeoutMs ?? 30_000} ms:\n  - ${last.join('\n  - ')}`);
}
