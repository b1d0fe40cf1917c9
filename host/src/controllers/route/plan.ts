// The route controller's reconcile decision (upstream route_controller.go): which routes to create and delete,
// and which nodes end up with all their routes. Pure, so every rule is tested without a cloud.
import { type CIDR, cidrContains, parseCIDR } from '../../net/cidr.ts';
import type { NodeAddress, Route } from '../../plugin/abi/index.ts';

export const MAX_CONCURRENT_ROUTE_CREATIONS = 200;

export interface RouteNode {
  name: string;
  uid: string;
  podCIDRs: readonly string[];
  /** status.addresses: a created route carries them (upstream's TargetNodeAddresses). */
  addresses: readonly NodeAddress[];
}

/** What a pass does for one pod CIDR of a node: its route is there (keep) or must be created (add). */
export type RouteAction = 'keep' | 'add';

export interface RoutePlan {
  create: { nameHint: string; route: Route }[];
  delete: Route[];
  /**
   * Upstream's routeMap: every node that has pod CIDRs or is the target of a cloud route -> pod CIDR -> action.
   * A successful creation turns its action into keep.
   */
  actions: Map<string, Map<string, RouteAction>>;
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

/**
 * CIDRs are compared as text, as upstream compares them: a cloud route for fd00:10:244:4:0:0:0:0/64 is not the
 * route of pod CIDR fd00:10:244:4::/64, so it is deleted and the pod CIDR's own route created.
 */
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
  const actions = new Map<string, Map<string, RouteAction>>();
  for (const target of byTarget.keys()) actions.set(target, new Map());
  const plan: RoutePlan = { create: [], delete: [], actions };
  for (const node of nodes) {
    if (node.podCIDRs.length === 0) continue;
    const nodeActions = actions.get(node.name) ?? new Map<string, RouteAction>();
    actions.set(node.name, nodeActions);
    const existing = byTarget.get(node.name) ?? [];
    for (const cidr of node.podCIDRs) {
      const action: RouteAction = existing.some((r) => r.destinationCIDR === cidr) ? 'keep' : 'add';
      nodeActions.set(cidr, action);
      if (action === 'keep') continue;
      plan.create.push({
        nameHint: node.uid,
        route: {
          name: '',
          targetNode: node.name,
          targetNodeAddresses: node.addresses.map((a) => ({ type: a.type, address: a.address })),
          destinationCIDR: cidr,
          blackhole: false,
        },
      });
    }
  }
  for (const r of routes) {
    if (!isResponsibleForRoute(r, clusterCIDRs)) continue;
    if (r.blackhole || actions.get(r.targetNode)?.get(r.destinationCIDR) === undefined) plan.delete.push(r);
  }
  return plan;
}

/**
 * The NetworkUnavailable verdict for a node after a pass, as upstream decides it: true (routes created) when every
 * pod CIDR's route is there; false when some is missing, or when the node has no pod CIDR but a cloud route points
 * at it; undefined (the condition is left alone) for a node with neither pod CIDRs nor routes.
 */
export function routesCreated(actions: ReadonlyMap<string, RouteAction> | undefined): boolean | undefined {
  if (actions === undefined) return undefined;
  if (actions.size === 0) return false;
  return [...actions.values()].every((a) => a === 'keep');
}
