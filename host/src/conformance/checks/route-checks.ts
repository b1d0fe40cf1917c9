// Routes (a create/list/delete round trip on one destination, scoped to the cluster), Zones and Clusters.
import type { Route } from '../../abi/index.ts';
import { type Check, type CheckContext, count, expectCode, expectOk, fail, skip } from '../check.ts';
import { describeOutcome } from '../probe.ts';

async function routesTo(ctx: CheckContext, clusterName: string, what: string): Promise<Route[]> {
  const list = expectOk(await ctx.probe.call('listRoutes', { clusterName }), what);
  return list.routes.filter((r) => r.destinationCIDR === ctx.fixture.route.destinationCIDR);
}

function testRoute(ctx: CheckContext): Route {
  const { destinationCIDR, targetNode } = ctx.fixture.route;
  return { name: '', targetNode: targetNode.name, targetNodeAddresses: [], destinationCIDR, blackhole: false };
}

export const routeChecks: Check[] = [
  {
    group: 'routes',
    capability: 'routes',
    title: 'createRoute, then listRoutes shows it',
    async run(ctx) {
      const { clusterName, route } = ctx.fixture;
      const before = await routesTo(ctx, clusterName, 'listRoutes');
      if (before.length > 0)
        fail(`the cluster already has a route to ${route.destinationCIDR}; pick a free destinationCIDR in the fixture`);
      ctx.state.routeCreated = true;
      const created = await ctx.probe.call('createRoute', {
        clusterName,
        nameHint: route.targetNode.uid,
        route: testRoute(ctx),
      });
      expectOk(created, 'createRoute');
      const after = await routesTo(ctx, clusterName, 'listRoutes after createRoute');
      if (after.length !== 1) fail(`listRoutes shows ${after.length} routes to ${route.destinationCIDR}, expected 1`);
      const r = after[0]!;
      if (r.targetNode !== route.targetNode.name)
        fail(`the route's targetNode is "${r.targetNode}", expected "${route.targetNode.name}"`);
      if (r.blackhole) fail('the new route to a running node is blackholed');
      if (r.name === '') fail('listRoutes gives the route no name');
      return `${r.name}: ${r.destinationCIDR} via ${r.targetNode}`;
    },
  },
  {
    group: 'routes',
    capability: 'routes',
    title: "listRoutes shows only the cluster's routes",
    async run(ctx) {
      if (!ctx.state.routeCreated) skip('needs the route of the create check');
      const other = `${ctx.fixture.clusterName}-other`;
      const seen = await routesTo(ctx, other, `listRoutes(${other})`);
      if (seen.length > 0)
        fail(`listRoutes for cluster ${other} shows the route created for ${ctx.fixture.clusterName}`);
      return `none under cluster ${other}`;
    },
  },
  {
    group: 'routes',
    capability: 'routes',
    title: 'createRoute again: still one route',
    async run(ctx) {
      if (!ctx.state.routeCreated) skip('needs the route of the create check');
      const { clusterName, route } = ctx.fixture;
      // A retry after a lost answer: an error is acceptable, a duplicate is not.
      const again = await ctx.probe.call('createRoute', {
        clusterName,
        nameHint: route.targetNode.uid,
        route: testRoute(ctx),
      });
      const after = await routesTo(ctx, clusterName, 'listRoutes');
      if (after.length !== 1)
        fail(`after a second createRoute, listRoutes shows ${after.length} routes to ${route.destinationCIDR}`);
      return again.kind === 'ok' ? 'second create ok' : `second create: ${describeOutcome(again)}`;
    },
  },
  {
    group: 'routes',
    capability: 'routes',
    title: 'deleteRoute, and again',
    async run(ctx) {
      if (!ctx.state.routeCreated) skip('needs the route of the create check');
      const { clusterName, route } = ctx.fixture;
      const listed = await routesTo(ctx, clusterName, 'listRoutes');
      if (listed.length === 0) fail('the route to delete is not listed');
      for (const r of listed)
        expectOk(await ctx.probe.call('deleteRoute', { clusterName, route: r }), `deleteRoute(${r.name})`);
      const after = await routesTo(ctx, clusterName, 'listRoutes after deleteRoute');
      if (after.length > 0)
        fail(`listRoutes still shows ${after.length} routes to ${route.destinationCIDR} after deleteRoute`);
      ctx.state.routeCreated = false;
      expectOk(
        await ctx.probe.call('deleteRoute', { clusterName, route: listed[0]! }),
        'deleteRoute of a deleted route',
      );
      return 'deleted; deleting again ok';
    },
  },
  {
    group: 'zones',
    capability: 'zones',
    title: 'zone by providerID = by name = metadata',
    async run(ctx) {
      const node = ctx.fixture.running[0]!;
      const byName = expectOk(
        await ctx.probe.call('getZoneByNodeName', { nodeName: node.name }),
        `getZoneByNodeName(${node.name})`,
      );
      if (byName.failureDomain === '' && byName.region === '')
        fail(`getZoneByNodeName(${node.name}) answered an empty zone and region`);
      const providerID = node.providerID || ctx.state.providerIDs.get(node.name) || '';
      if (providerID !== '') {
        const byID = expectOk(
          await ctx.probe.call('getZoneByProviderID', { providerID }),
          `getZoneByProviderID(${providerID})`,
        );
        if (byID.failureDomain !== byName.failureDomain || byID.region !== byName.region) {
          fail(`by provider ID ${byID.region}/${byID.failureDomain}, by name ${byName.region}/${byName.failureDomain}`);
        }
      }
      if (ctx.declared.has('instancesV2')) {
        const md = expectOk(await ctx.probe.call('instanceMetadata', { node }), `instanceMetadata(${node.name})`);
        if (md.zone !== byName.failureDomain || md.region !== byName.region) {
          fail(
            `instanceMetadata says ${md.region}/${md.zone}, getZoneByNodeName ${byName.region}/${byName.failureDomain}`,
          );
        }
      }
      return `${byName.region}/${byName.failureDomain}`;
    },
  },
  {
    group: 'zones',
    capability: 'zones',
    title: 'missing nodes: InstanceNotFound; getZone',
    async run(ctx) {
      for (const node of ctx.fixture.missing) {
        expectCode(
          await ctx.probe.call('getZoneByNodeName', { nodeName: node.name }),
          'InstanceNotFound',
          `getZoneByNodeName(${node.name}, missing)`,
        );
        if (node.providerID !== '') {
          expectCode(
            await ctx.probe.call('getZoneByProviderID', { providerID: node.providerID }),
            'InstanceNotFound',
            `getZoneByProviderID(${node.providerID}, missing)`,
          );
        }
      }
      const zone = await ctx.probe.call('getZone', {});
      if (zone.kind === 'violation' || (zone.kind === 'error' && zone.error.code === 'NotImplemented')) {
        fail(`getZone answered ${describeOutcome(zone)}`);
      }
      const own = zone.kind === 'ok' ? `${zone.value.region}/${zone.value.failureDomain}` : describeOutcome(zone);
      return `${count(ctx.fixture.missing.length, 'missing node')}; getZone: ${own}`;
    },
  },
  {
    group: 'clusters',
    capability: 'clusters',
    title: 'listClusters and master',
    async run(ctx) {
      const list = expectOk(await ctx.probe.call('listClusters', {}), 'listClusters');
      if (list.clusters.some((c) => c === '')) fail('listClusters includes an empty name');
      if (new Set(list.clusters).size !== list.clusters.length)
        fail(`listClusters repeats names: ${list.clusters.join(', ')}`);
      const master = await ctx.probe.call('master', { clusterName: ctx.fixture.clusterName });
      if (master.kind === 'violation' || (master.kind === 'error' && master.error.code === 'NotImplemented')) {
        fail(`master answered ${describeOutcome(master)}`);
      }
      if (master.kind === 'ok' && master.value.address === '') fail('master answered an empty address');
      const m = master.kind === 'ok' ? master.value.address : describeOutcome(master);
      return `clusters [${list.clusters.join(', ')}]; master: ${m}`;
    },
  },
];

/** Best effort: remove the test route if a failed check left it behind. */
export async function cleanUpRoute(ctx: CheckContext): Promise<void> {
  if (!ctx.state.routeCreated) return;
  const { clusterName } = ctx.fixture;
  const list = await ctx.probe.call('listRoutes', { clusterName });
  if (list.kind !== 'ok') return;
  for (const r of list.value.routes.filter((x) => x.destinationCIDR === ctx.fixture.route.destinationCIDR)) {
    await ctx.probe.call('deleteRoute', { clusterName, route: r });
  }
}
