// The embedded handle's seed helpers for routes and load balancers: validated like the API, visible to the API at
// once, and never counted (a seeded stray route or stale LB is what a CCM must find, not one of its own calls).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadBalancer, Route } from '../../../devcloud/src/index.ts';
import { start, type Harness } from './helpers.ts';

describe('devcloud seed helpers', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
    h.dc.addInstance({ name: 'n1', id: 'i-n1' });
  });
  afterEach(() => h.dc.stop());

  it('seeds a route kept as written (a non-canonical IPv6 destination too), served by the API, not counted', async () => {
    const seeded = h.dc.addRoute({
      name: 'stray',
      destinationCidr: 'fd00:10:244:4:0:0:0:0/64',
      targetInstanceId: 'i-n1',
      tags: { 'k8s-cluster': 'kubernetes' },
    });
    expect(seeded).toMatchObject({ destinationCidr: 'fd00:10:244:4:0:0:0:0/64', blackhole: false });
    const got = await h.api.get<Route>('/routes/stray');
    expect(got.body).toEqual(seeded);
    // The same network written canonically is the same destination.
    const canonical = { name: 'b', destinationCidr: 'fd00:10:244:4::/64', targetInstanceId: 'i-n1' };
    expect((await h.api.post('/routes', canonical)).status).toBe(409);
    expect(h.dc.inventory().counters.createRoute?.byStatus).toEqual({ '409': 1 });
  });

  it('seeds a load balancer with a VIP from the pool, served by the API', async () => {
    const lb = h.dc.addLoadBalancer({
      name: 'stale',
      listeners: [{ protocol: 'TCP', port: 80, nodePort: 30080 }],
      backendInstanceIds: ['i-n1'],
      tags: { 'k8s-cluster': 'kubernetes' },
    });
    expect(lb.vip).toMatch(/^198\.18\./);
    expect((await h.api.get<LoadBalancer>('/load-balancers/stale')).body).toMatchObject({ vip: lb.vip, revision: 1 });
    expect(h.dc.inventory().counters.createLoadBalancer).toBeUndefined();
  });

  it('refuses what the API refuses, with the same error', () => {
    expect(() => h.dc.addRoute({ name: 'r', destinationCidr: '10.244.1.7/24', targetInstanceId: 'i-n1' })).toThrow(
      /host bits/,
    );
    expect(() => h.dc.addLoadBalancer({ name: 'x', listeners: [], backendInstanceIds: ['i-ghost'] })).toThrow(
      /i-ghost/,
    );
    expect(h.dc.inventory().routes).toEqual([]);
  });
});
