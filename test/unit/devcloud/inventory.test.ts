import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../../devcloud/src/index.ts';
import { start, tcp, type Harness } from './helpers.ts';

describe('devcloud inventory and counters', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start({ vipPool: ['203.0.113.0/28'] });
  });
  afterEach(() => h.dc.stop());

  it('returns everything in the cloud, LBs with their backends’ names and states', async () => {
    const a = h.dc.addInstance({ name: 'a', id: 'i-a' });
    const b = h.dc.addInstance({ name: 'b', id: 'i-b' });
    h.dc.stopInstance(b.id);
    await h.api.post('/load-balancers', { name: 'web', listeners: [tcp(80, 30080)], backendInstanceIds: [a.id, b.id] });
    await h.api.post('/routes', { name: 'r', destinationCidr: '10.244.0.0/24', targetInstanceId: a.id });

    const res = await h.admin.get<Inventory>('/admin/inventory');
    expect(res.status).toBe(200);
    const inv = res.body;
    expect(inv.instances.map((i) => [i.id, i.state])).toEqual([
      ['i-a', 'running'],
      ['i-b', 'stopped'],
    ]);
    expect(inv.loadBalancers).toHaveLength(1);
    expect(inv.loadBalancers[0]).toMatchObject({
      name: 'web',
      vip: '203.0.113.1',
      backendInstanceIds: ['i-a', 'i-b'],
      backends: [
        { id: 'i-a', name: 'a', state: 'running' },
        { id: 'i-b', name: 'b', state: 'stopped' },
      ],
    });
    expect(inv.routes).toEqual([expect.objectContaining({ name: 'r', blackhole: false })]);
    expect(inv.vipPool).toEqual({ cidrs: ['203.0.113.0/28'], size: 14, used: 1, free: 13, allocated: ['203.0.113.1'] });
    expect(inv.zones).toHaveLength(4);
    expect(inv.regions).toHaveLength(2);
    expect(inv.knobs.outage).toBe(false);
    // The handle answers the same (minus this very request in the counters).
    const { counters: _c, ...fromHandle } = h.dc.inventory();
    const { counters: _c2, ...fromHttp } = inv;
    expect(fromHandle).toEqual(fromHttp);
  });

  it('counts requests per operation and status, including faults and auth failures', async () => {
    h.dc.addInstance({ name: 'seeded' }); // seed helpers bypass HTTP: not counted
    await h.api.get('/instances/by-name/seeded');
    await h.api.get('/instances/by-name/missing');
    h.dc.setKnobs({ failNext: [{ kind: 'listZones', count: 1, status: 503 }] });
    await h.api.get('/zones');
    await h.api.get('/zones');
    await fetch(`${h.dc.url}/v1/zones`);
    await h.api.get('/nowhere');
    const counters = h.dc.inventory().counters;
    expect(counters.getInstanceByName).toEqual({
      method: 'GET',
      route: '/v1/instances/by-name/:name',
      total: 2,
      byStatus: { '200': 1, '404': 1 },
    });
    expect(counters.listZones!.byStatus).toEqual({ '200': 1, '503': 1, '401': 1 });
    expect(counters.unmatched!.total).toBe(1);
    expect(counters.adminCreateInstance).toBeUndefined();
  });

  it('resets counters over HTTP and on the handle', async () => {
    await h.api.get('/zones');
    expect((await h.admin.del('/admin/counters')).status).toBe(204);
    expect(h.dc.inventory().counters.listZones).toBeUndefined();
    await h.api.get('/regions');
    h.dc.resetCounters();
    expect(h.dc.inventory().counters).toEqual({});
  });

  it('hands out copies: changing what the handle returned does not change the cloud', () => {
    const made = h.dc.addInstance({ name: 'x' });
    made.state = 'terminated';
    h.dc.inventory().instances[0]!.labels.injected = 'yes';
    expect(h.dc.inventory().instances[0]).toMatchObject({ state: 'running', labels: {} });
  });
});
