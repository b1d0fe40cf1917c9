import { describe, expect, it } from 'vitest';
import {
  isResponsibleForRoute,
  planRoutes,
  type RouteNode,
  routesCreated,
} from '../../../../host/src/controllers/route/plan.ts';
import { parseClusterCIDRs } from '../../../../host/src/net/cidr.ts';
import type { Route } from '../../../../host/src/plugin/abi/index.ts';

const cluster = parseClusterCIDRs('10.244.0.0/16,fd00:10::/56');

function route(targetNode: string, destinationCIDR: string, extra: Partial<Route> = {}): Route {
  return {
    name: `r-${targetNode}-${destinationCIDR}`,
    targetNode,
    targetNodeAddresses: [],
    destinationCIDR,
    blackhole: false,
    ...extra,
  };
}

const nodes: RouteNode[] = [
  {
    name: 'a',
    uid: 'uid-a',
    podCIDRs: ['10.244.1.0/24', 'fd00:10:0:1::/64'],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
  },
  { name: 'b', uid: 'uid-b', podCIDRs: ['10.244.2.0/24'], addresses: [] },
  { name: 'c', uid: 'uid-c', podCIDRs: [], addresses: [] },
];

describe('route plan', () => {
  it('creates a route per missing pod CIDR, named by the node UID, skipping nodes without CIDRs', () => {
    const plan = planRoutes(nodes, [route('a', '10.244.1.0/24')], cluster);
    expect(plan.create.map((c) => [c.nameHint, c.route.targetNode, c.route.destinationCIDR])).toEqual([
      ['uid-a', 'a', 'fd00:10:0:1::/64'],
      ['uid-b', 'b', '10.244.2.0/24'],
    ]);
    // Upstream's CreateRoute gets the node's addresses as TargetNodeAddresses.
    expect(plan.create[0]?.route.targetNodeAddresses).toEqual([{ type: 'InternalIP', address: '10.0.0.1' }]);
    expect([...(plan.actions.get('a') ?? [])]).toEqual([
      ['10.244.1.0/24', 'keep'],
      ['fd00:10:0:1::/64', 'add'],
    ]);
    expect(plan.actions.has('c')).toBe(false);
  });

  it("compares CIDRs as text: a non-canonical route is replaced by the pod CIDR's own (upstream)", () => {
    const odd = route('a', 'fd00:10:0:1:0:0:0:0/64');
    const plan = planRoutes([nodes[0]!], [route('a', '10.244.1.0/24'), odd], cluster);
    expect(plan.create.map((c) => c.route.destinationCIDR)).toEqual(['fd00:10:0:1::/64']);
    expect(plan.delete).toEqual([odd]);
    expect(routesCreated(plan.actions.get('a'))).toBe(false);
  });

  it('deletes blackholed routes, routes to unknown nodes and to CIDRs a node no longer has — only inside the cluster CIDR', () => {
    const routes = [
      route('a', '10.244.1.0/24', { blackhole: true }),
      route('gone', '10.244.9.0/24'),
      route('b', '10.244.3.0/24'),
      route('b', '10.244.2.0/24'),
      route('gone', '192.168.0.0/24'),
      route('gone', 'fd00:10:0:9::/64'),
    ];
    const plan = planRoutes(nodes, routes, cluster);
    expect(plan.delete.map((r) => `${r.targetNode} ${r.destinationCIDR}`)).toEqual([
      'a 10.244.1.0/24',
      'gone 10.244.9.0/24',
      'b 10.244.3.0/24',
      'gone fd00:10:0:9::/64',
    ]);
  });

  it('is responsible for a route whose first or last address is in a cluster CIDR', () => {
    expect(isResponsibleForRoute(route('x', '10.244.5.0/24'), cluster)).toBe(true);
    expect(isResponsibleForRoute(route('x', '10.0.0.0/8'), parseClusterCIDRs('10.255.0.0/16'))).toBe(true);
    expect(isResponsibleForRoute(route('x', '10.0.0.0/8'), parseClusterCIDRs('10.7.0.0/16'))).toBe(false);
    expect(isResponsibleForRoute(route('x', '10.245.0.0/24'), cluster)).toBe(false);
    expect(isResponsibleForRoute(route('x', 'garbage'), cluster)).toBe(false);
  });

  it('marks a node routed only when every pod CIDR has a route', () => {
    const plan = planRoutes(nodes, [route('a', '10.244.1.0/24')], cluster);
    expect(routesCreated(plan.actions.get('a'))).toBe(false);
    plan.actions.get('a')?.set('fd00:10:0:1::/64', 'keep');
    expect(routesCreated(plan.actions.get('a'))).toBe(true);
    expect(routesCreated(plan.actions.get('b'))).toBe(false);
  });

  it('leaves the condition of a node without pod CIDRs alone, unless a cloud route points at it (upstream)', () => {
    const plan = planRoutes(nodes, [route('x', '10.244.8.0/24')], cluster);
    // c has no pod CIDR and no route: no NetworkUnavailable write at all.
    expect(routesCreated(plan.actions.get('c'))).toBeUndefined();
    // x has no pod CIDR (not a node with CIDRs) but a route targets it: marked unavailable, its route deleted.
    expect(routesCreated(plan.actions.get('x'))).toBe(false);
    expect(plan.delete.map((r) => r.targetNode)).toEqual(['x']);
    const withRoute = planRoutes(nodes, [route('c', '192.168.0.0/24')], cluster);
    expect(routesCreated(withRoute.actions.get('c'))).toBe(false);
    expect(withRoute.delete).toEqual([]);
  });
});
