// The route controller's reconcile decision (upstream route_controller.go): which routes to create and delete,
// and which nodes end up with all their routes. Pure, so every rule is tested without a cloud.
import { type CIDR, cidrContains, parseCIDR } from '../../net/cidr.ts';
import type { Route } from '../../plugin/abi/index.ts';

export const MAX_CONCURRENT_ROUTE_CREATIONS = 200;

export interface RouteNode {
  name: string;
  uid: string;
  podCIDRs: readonly string[];
}

export interface RoutePlan {
  create: { nameHint: string; route: Route }[];
  delete: Route[];
  /** node name -> pod CIDRs that already have a route. */
  existing: Map<string, Set<string>>;
}

function sameCIDR(a: string, b: string): boolean {
  try {
    return parseCIDR(a).text === parseCIDR(b).text;
  } catch {
    return a === b;
  }
}

/** A route is ours to delete only when its first or last address lies inside one of the cluster CIDRs. */
export function isResponsibleForRoute(route: Route, clusterCIDRs: readonly CIDR[]): boolean {
  let dest: CIDR;
  try {
    dest = parseCIDR(route.destinationCIDR);
  } catch {
    return false;
  }
  const bits = dest.family === 'IPv4' ? 32 : 128;
  const last = dest.network | ((1n << BigInt(bits - dest.prefixLength)) - 1n);
  const single = (network: bigint): CIDR => ({ family: dest.family, network, prefixLength: bits, text: '' });
  return clusterCIDRs.some((c) => cidrContains(c, single(dest.network)) || cidrContains(c, single(last)));
}

export function planRoutes(
  nodes: readonly RouteNode[],
  routes: readonly Route[],
  clusterCIDRs: readonly CIDR[],
): RoutePlan {
  const byTarget = new Map<string, Route[]>();
  for (const r of routes) {
    if (r.targetNode === '') continue;
    byTarget.set(r.targetNode, [...(byTarget.get(r.targetNode) ?? []), r]);
  }
  const plan: RoutePlan = { create: [], delete: [], existing: new Map() };
  const nodeCIDRs = new Map<string, readonly string[]>();
  for (const node of nodes) {
    if (node.podCIDRs.length === 0) continue;
    nodeCIDRs.set(node.name, node.podCIDRs);
    const have = new Set<string>();
    plan.existing.set(node.name, have);
    for (const cidr of node.podCIDRs) {
      if ((byTarget.get(node.name) ?? []).some((r) => sameCIDR(r.destinationCIDR, cidr))) {
        have.add(cidr);
        continue;
      }
      plan.create.push({
        nameHint: node.uid,
        route: { name: '', targetNode: node.name, targetNodeAddresses: [], destinationCIDR: cidr, blackhole: false },
      });
    }
  }
  for (const r of routes) {
    if (!isResponsibleForRoute(r, clusterCIDRs)) continue;
    const cidrs = nodeCIDRs.get(r.targetNode) ?? [];
    if (r.blackhole || !cidrs.some((c) => sameCIDR(c, r.destinationCIDR))) plan.delete.push(r);
  }
  return plan;
}

/** NetworkUnavailable=False needs every pod CIDR of the node routed; a node without pod CIDRs has none. */
export function allRoutesCreated(node: RouteNode, routed: ReadonlySet<string> | undefined): boolean {
  return node.podCIDRs.length > 0 && node.podCIDRs.every((c) => routed?.has(c) === true);
}
