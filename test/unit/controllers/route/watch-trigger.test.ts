// The watch-based route reconciliation gate: which node events trigger a reconciliation, and how often.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { WireNode } from '../../../../host/src/controllers/framework/wire-objects.ts';
import {
  RouteController,
  type RouteControllerOptions,
} from '../../../../host/src/controllers/route/route-controller.ts';
import { routesAffected } from '../../../../host/src/controllers/route/watch-trigger.ts';
import type { EventHandlers } from '../../../../host/src/kube/informer/informer.ts';
import { FakeClock, flushMicrotasks } from '../../../support/fake-clock.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';
import { parseClusterCIDRs } from '../../../../host/src/net/cidr.ts';
import { FakeProvider } from '../../../support/fake-provider.ts';

const node = (rv: string, podCIDRs: string[], address = '10.0.0.1', label = 'a'): WireNode => ({
  metadata: { name: 'n1', resourceVersion: rv, labels: { l: label } },
  spec: { podCIDRs },
  status: { addresses: [{ type: 'InternalIP', address }] },
});

describe('routesAffected', () => {
  it("is true for a pod CIDR or address change and the informer's resync, false for other updates", () => {
    expect(routesAffected(node('1', ['10.244.1.0/24']), node('2', ['10.244.2.0/24']))).toBe(true);
    expect(routesAffected(node('1', ['10.244.1.0/24']), node('2', ['10.244.1.0/24'], '10.0.0.2'))).toBe(true);
    expect(routesAffected(node('1', ['10.244.1.0/24']), node('1', ['10.244.1.0/24']))).toBe(true);
    expect(routesAffected(node('1', ['10.244.1.0/24']), node('2', ['10.244.1.0/24'], '10.0.0.1', 'b'))).toBe(false);
  });
});

describe('route controller with CloudControllerManagerWatchBasedRoutesReconciliation', () => {
  it('reconciles on a node event without its timer, and at most once per event burst', async () => {
    const cloud = new FakeProvider();
    let handlers: EventHandlers<WireNode> = {};
    const nodes = {
      cache: { list: () => [] },
      addEventHandler: (h: EventHandlers<WireNode>) => {
        handlers = h;
        return () => undefined;
      },
    } as unknown as RouteControllerOptions['nodes'];
    const controller = new RouteController({
      client: {} as RouteControllerOptions['client'],
      nodes,
      routes: cloud.routes()!,
      clusterName: 'kubernetes',
      clusterCIDRs: parseClusterCIDRs('10.244.0.0/16'),
      recorder: {} as RouteControllerOptions['recorder'],
      logger: silentLogger,
      periodMs: 3_600_000, // the timer would not fire within this test
      leaseFresh: () => true,
      registry: new Registry(),
      watchBased: true,
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    const lists = () => cloud.calls.filter((c) => c.method === 'list-routes').length;
    expect(lists()).toBe(0);
    handlers.onAdd?.(node('1', ['10.244.1.0/24']), false);
    handlers.onAdd?.(node('2', ['10.244.2.0/24']), false);
    await expect.poll(lists).toBe(1);
    // The second event waits for the bucket (10 s): nothing more happens now.
    expect(controller.events?.len()).toBe(0);
    abort.abort();
    await running;
    expect(lists()).toBe(1);
  });

  it('asks again when it skipped a run for a stale lease, and is healthy however long a quiet cluster stays quiet', async () => {
    const cloud = new FakeProvider();
    const clock = new FakeClock();
    let handlers: EventHandlers<WireNode> = {};
    let fresh = false;
    const controller = new RouteController({
      client: {} as RouteControllerOptions['client'],
      nodes: {
        cache: { list: () => [] },
        addEventHandler: (h: EventHandlers<WireNode>) => {
          handlers = h;
          return () => undefined;
        },
      } as unknown as RouteControllerOptions['nodes'],
      routes: cloud.routes()!,
      clusterName: 'kubernetes',
      clusterCIDRs: parseClusterCIDRs('10.244.0.0/16'),
      recorder: {} as RouteControllerOptions['recorder'],
      logger: silentLogger,
      periodMs: 1_000,
      leaseFresh: () => fresh,
      registry: new Registry(),
      watchBased: true,
      clock,
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    const lists = () => cloud.calls.filter((c) => c.method === 'list-routes').length;
    handlers.onAdd?.(node('1', ['10.244.1.0/24']), false);
    await flushMicrotasks();
    expect(lists()).toBe(0); // skipped: the lease is not fresh
    fresh = true;
    await clock.advance(10_000);
    await expect.poll(lists).toBe(1);
    expect(() => controller.healthy()).not.toThrow();
    abort.abort();
    await running;
  });
});
