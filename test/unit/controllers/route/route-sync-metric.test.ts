// route_controller_route_sync_total counts the reconciliations that reach the cloud's route list, as upstream's
// reconcileNodeRoutes does; a replica whose lease is not fresh skips the cloud and does not count.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  RouteController,
  type RouteControllerOptions,
} from '../../../../host/src/controllers/route/route-controller.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';
import { parseClusterCIDRs } from '../../../../host/src/net/cidr.ts';
import { FakeProvider } from '../../../support/fake-provider.ts';

async function syncCount(registry: Registry): Promise<number> {
  const json = await registry.getSingleMetric('route_controller_route_sync_total')!.get();
  return json.values[0]?.value ?? 0;
}

describe('route_controller_route_sync_total', () => {
  it('counts each reconciliation that lists the cloud routes, and none skipped for a stale lease', async () => {
    const cloud = new FakeProvider();
    const registry = new Registry();
    let fresh = false;
    const controller = new RouteController({
      client: {} as RouteControllerOptions['client'],
      nodes: { cache: { list: () => [] } } as unknown as RouteControllerOptions['nodes'],
      routes: cloud.routes()!,
      clusterName: 'kubernetes',
      clusterCIDRs: parseClusterCIDRs('10.244.0.0/16'),
      recorder: {} as RouteControllerOptions['recorder'],
      logger: silentLogger,
      periodMs: 3_600_000,
      leaseFresh: () => fresh,
      registry,
    });
    await controller.reconcile();
    expect(cloud.calls.filter((c) => c.method === 'list-routes')).toHaveLength(0);
    expect(await syncCount(registry)).toBe(0);
    fresh = true;
    await controller.reconcile();
    await controller.reconcile();
    expect(cloud.calls.filter((c) => c.method === 'list-routes')).toHaveLength(2);
    expect(await syncCount(registry)).toBe(2);
  });
});
