// A checkpoint of one side of the OpenStack parity test, flattened under `<checkpoint>/`: the Nodes (providerID,
// labels, addresses, taints, NetworkUnavailable, pod CIDRs, or absent), the Service (finalizers, annotations,
// status), Octavia's load balancers of the project, the router's extra routes, the ports' allowed address pairs,
// and the Events of the Service and the Nodes as `<type> <reason>` with their counts.
import type { CoreV1Api, V1Node, V1Service } from '@kubernetes/client-node';
import { flatten, seg } from '../../../support/parity/flatten.ts';
import { ccmEvents } from '../../../support/parity/events.ts';
import { addressPairs, type IdNames, normalized, octaviaState, routerRoutes } from './parity-cloud.ts';
import { SERVICE, type Side } from './parity-side.ts';

export async function snapshotCheckpoint(side: Side, checkpoint: string, nodeNames: readonly string[]) {
  const { core, out, names, estate, ctx } = side;
  const nodes = (await core.listNode()).items;
  for (const name of nodeNames) {
    const node = nodes.find((n) => n.metadata?.name === name);
    flatten(out, `${checkpoint}/node/${seg(name)}`, node === undefined ? '(absent)' : nodeView(node, names));
    flatten(
      out,
      `${checkpoint}/events/node/${seg(name)}`,
      countsOf(await eventsOf(core, 'Node', name, undefined, true)),
    );
  }
  const services = await core.listNamespacedService({ namespace: ctx.namespace });
  for (const svc of services.items)
    flatten(out, `${checkpoint}/service/${svc.metadata?.name}`, serviceView(svc, names));
  const events = await eventsOf(core, 'Service', SERVICE, ctx.namespace, true);
  flatten(out, `${checkpoint}/events/service/${SERVICE}`, countsOf(events));
  const { client } = estate.project;
  flatten(out, `${checkpoint}/octavia`, await octaviaState(client, names));
  flatten(out, `${checkpoint}/router/routes`, await routerRoutes(client, estate.network.routerId));
  flatten(out, `${checkpoint}/ports/allowed-address-pairs`, await addressPairs(client, estate));
}

function nodeView(node: V1Node, names: IdNames): unknown {
  const network = node.status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  return normalized(
    {
      providerID: node.spec?.providerID ?? '',
      labels: node.metadata?.labels ?? {},
      annotations: node.metadata?.annotations ?? {},
      addresses: (node.status?.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
      taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, effect: t.effect, value: t.value })),
      podCIDRs: node.spec?.podCIDRs ?? [],
      networkUnavailable:
        network === undefined ? '(none)' : { status: network.status, reason: network.reason, message: network.message },
    },
    names,
  );
}

function serviceView(svc: V1Service, names: IdNames): unknown {
  return normalized(
    {
      finalizers: svc.metadata?.finalizers ?? [],
      annotations: svc.metadata?.annotations ?? {},
      ingress: svc.status?.loadBalancer?.ingress ?? [],
      conditions: (svc.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason })),
    },
    names,
  );
}

/** `<type> <reason>` of each Event about the object; with `expand`, repeated as often as its count says. */
export async function eventsOf(
  core: CoreV1Api,
  kind: string,
  name: string,
  namespace?: string,
  expand = false,
): Promise<string[]> {
  const fieldSelector = `involvedObject.kind=${kind},involvedObject.name=${name}`;
  const list =
    namespace === undefined
      ? await core.listEventForAllNamespaces({ fieldSelector })
      : await core.listNamespacedEvent({ namespace, fieldSelector });
  return ccmEvents(list.items).flatMap((e) => Array<string>(expand ? (e.count ?? 1) : 1).fill(`${e.type} ${e.reason}`));
}

function countsOf(events: readonly string[]): Record<string, number> | string {
  if (events.length === 0) return '(none)';
  const counts: Record<string, number> = {};
  for (const e of [...events].sort()) counts[e] = (counts[e] ?? 0) + 1;
  return counts;
}

/** Removes the Events of this side's objects, so the next side starts from none (the names are the same). */
export async function clearEvents(
  core: CoreV1Api,
  namespace: string,
  services: readonly string[],
  nodes: readonly string[],
): Promise<void> {
  const objects = [...services.map((n) => ['Service', n]), ...nodes.map((n) => ['Node', n])];
  for (const [kind, name] of objects) {
    const list = await core.listEventForAllNamespaces({
      fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
    });
    for (const e of list.items) {
      if (kind === 'Service' && e.metadata?.namespace !== namespace) continue;
      await core
        .deleteNamespacedEvent({ namespace: e.metadata?.namespace ?? 'default', name: e.metadata?.name ?? '' })
        .catch(() => undefined);
    }
  }
}
