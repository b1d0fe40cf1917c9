// What a CCM did, read back from the apiserver and the cloud as a flattened snapshot: Nodes, Services of every
// type (finalizers, status), every Event about the objects in scope (with counts and messages), and the cloud's
// load balancers, routes and instance states, with UIDs replaced by the names of their objects.
import type { CoreV1Event, V1Node, V1Service } from '@kubernetes/client-node';
import type { LoadBalancerInventory, Route } from '../../../../devcloud/src/index.ts';
import { flatten, seg, type Snapshot } from '../../../support/parity/flatten.ts';
import { isApiserverEvent } from '../../../support/parity/events.ts';
import { NAMESPACE } from './objects.ts';
import type { World } from './world.ts';

/** Which objects (by Kubernetes name, or cloud name for unowned cloud objects) a snapshot covers. */
export type Scope = (name: string) => boolean;

/** The harness's own objects (watermarks) start with this and are never compared. */
export const HARNESS_PREFIX = 'zz-parity-';

export const everything: Scope = (name) => !name.startsWith(HARNESS_PREFIX);

export function withPrefix(prefix: string): Scope {
  return (name) => name.startsWith(prefix);
}

/** How long a call took, in route events ("... for node x after 1.58ms: ..."): differs from run to run. */
const ELAPSED = /\bafter \d+(\.\d+)?(ns|µs|us|ms|s|m)\b/g;

export async function takeSnapshot(world: World, scope: Scope, prefix = ''): Promise<Snapshot> {
  const out: Snapshot = new Map();
  const [nodes, services, events] = await Promise.all([
    world.core.listNode(),
    world.core.listNamespacedService({ namespace: NAMESPACE }),
    world.core.listEventForAllNamespaces(),
  ]);
  for (const n of nodes.items) {
    world.names.remember('Node', n.metadata!.name!, n.metadata?.uid);
    if (scope(n.metadata!.name!)) flatten(out, `${prefix}node/${seg(n.metadata!.name!)}`, nodeView(n));
  }
  for (const s of services.items) {
    const name = s.metadata!.name!;
    world.names.remember('Service', name, s.metadata?.uid);
    if (name !== 'kubernetes' && scope(name)) flatten(out, `${prefix}service/${seg(name)}`, serviceView(s));
  }
  eventsInto(out, prefix, events.items, scope, world);
  cloudInto(out, prefix, world, scope);
  return out;
}

function nodeView(n: V1Node): object {
  const net = n.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  return {
    labels: n.metadata?.labels ?? {},
    annotations: n.metadata?.annotations ?? {},
    finalizers: n.metadata?.finalizers ?? [],
    deleting: n.metadata?.deletionTimestamp !== undefined,
    providerID: n.spec?.providerID ?? null,
    unschedulable: n.spec?.unschedulable ?? false,
    taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, value: t.value ?? '' })),
    addresses: n.status?.addresses ?? [],
    NetworkUnavailable: net ? { status: net.status, reason: net.reason, message: net.message } : null,
  };
}

function serviceView(s: V1Service): object {
  return {
    type: s.spec?.type ?? null,
    loadBalancerClass: s.spec?.loadBalancerClass ?? null,
    finalizers: s.metadata?.finalizers ?? [],
    deleting: s.metadata?.deletionTimestamp !== undefined,
    annotations: s.metadata?.annotations ?? {},
    loadBalancer: s.status?.loadBalancer ?? {},
    conditions: (s.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason })),
  };
}

/**
 * Events grouped by (object, type, reason): the total count, how many Event objects hold it (aggregation and
 * deduplication decide that) and the distinct messages.
 */
function eventsInto(out: Snapshot, prefix: string, events: CoreV1Event[], scope: Scope, world: World): void {
  const groups = new Map<string, { count: number; objects: number; messages: Set<string> }>();
  for (const e of events) {
    const o = e.involvedObject;
    if (!o.name || !scope(o.name) || (o.kind !== 'Node' && o.kind !== 'Service')) continue;
    if (isApiserverEvent(e)) continue;
    const key = `${prefix}event/${o.kind}/${seg(o.name)}/${e.type}/${e.reason}`;
    const group = groups.get(key) ?? { count: 0, objects: 0, messages: new Set<string>() };
    group.count += e.count ?? e.series?.count ?? 1;
    group.objects++;
    group.messages.add(world.names.humanize(e.message ?? '').replace(ELAPSED, 'after <duration>'));
    groups.set(key, group);
  }
  for (const [key, g] of groups) {
    out.set(`${key}/count`, String(g.count));
    out.set(`${key}/objects`, String(g.objects));
    out.set(`${key}/messages`, JSON.stringify([...g.messages].sort()));
  }
}

function cloudInto(out: Snapshot, prefix: string, world: World, scope: Scope): void {
  const inv = world.cloud.inventory();
  for (const lb of inv.loadBalancers) {
    const service = lb.tags['k8s-service']?.split('/')[1];
    const name = service ?? lb.name;
    if (scope(name)) flatten(out, `${prefix}cloud/lb/${seg(name)}`, lbView(lb, world));
  }
  for (const r of inv.routes) {
    const node = r.tags['k8s-node'];
    if (scope(node ?? r.name)) flatten(out, `${prefix}cloud/route/${seg(world.names.humanize(r.name))}`, routeView(r));
  }
  for (const i of inv.instances) if (scope(i.name)) out.set(`${prefix}cloud/instance/${seg(i.name)}/state`, i.state);
}

/** An LB without what legitimately differs between runs (times, revision); UIDs become names. */
export function lbView(lb: LoadBalancerInventory, world: World): object {
  const tags = Object.fromEntries(Object.entries(lb.tags).map(([k, v]) => [k, world.names.humanize(v)]));
  return {
    name: lb.name,
    vip: lb.vip,
    listeners: lb.listeners,
    backends: lb.backends.map((b) => b.name),
    sourceRanges: lb.sourceRanges,
    healthCheckNodePort: lb.healthCheckNodePort,
    tags,
    description: lb.description,
  };
}

function routeView(r: Route): object {
  return {
    destinationCidr: r.destinationCidr,
    targetInstanceId: r.targetInstanceId,
    blackhole: r.blackhole,
    tags: r.tags,
    description: r.description,
  };
}
