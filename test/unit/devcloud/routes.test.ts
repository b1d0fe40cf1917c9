import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Route } from '../../../devcloud/src/index.ts';
import { start, type Harness } from './helpers.ts';

describe('devcloud routes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
    h.dc.addInstance({ name: 'n1', id: 'i-n1' });
    h.dc.addInstance({ name: 'n2', id: 'i-n2' });
  });
  afterEach(() => h.dc.stop());

  const route = (name: string, destinationCidr: string, targetInstanceId = 'i-n1') => ({
    name,
    destinationCidr,
    targetInstanceId,
  });
  const list = async (q = '') => (await h.api.get<{ items: Route[] }>(`/routes${q}`)).body.items;

  it('creates, gets, lists and deletes', async () => {
    const made = await h.api.post<Route>('/routes', {
      ...route('r-uid-1', '10.244.1.0/24'),
      description: 'node n1',
      tags: { cluster: 'demo' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'r-uid-1',
      destinationCidr: '10.244.1.0/24',
      targetInstanceId: 'i-n1',
      blackhole: false,
      description: 'node n1',
      tags: { cluster: 'demo' },
    });
    await h.api.post('/routes', route('r-uid-2', 'fd00:10:244:2::/64', 'i-n2'));
    expect((await h.api.get<Route>('/routes/r-uid-1')).body).toEqual(made.body);
    expect((await list()).map((r) => r.name)).toEqual(['r-uid-1', 'r-uid-2']);
    expect((await list('?tag=cluster=demo')).map((r) => r.name)).toEqual(['r-uid-1']);
    expect((await list('?targetInstanceId=i-n2')).map((r) => r.name)).toEqual(['r-uid-2']);
    expect((await h.api.del('/routes/r-uid-1')).status).toBe(204);
    expect((await h.api.del('/routes/r-uid-1')).status).toBe(404);
    expect((await h.api.get('/routes/r-uid-1')).status).toBe(404);
    expect((await list()).map((r) => r.name)).toEqual(['r-uid-2']);
  });

  it.each([
    [route('r', '10.244.1.0'), 'destinationCidr', /not a CIDR/],
    [route('r', '10.244.1.0/40'), 'destinationCidr', /not a CIDR/],
    [route('r', '10.244.1.7/24'), 'destinationCidr', /host bits.*10\.244\.1\.0\/24/],
    [route('r', '10.244.1.0/24', 'i-ghost'), 'targetInstanceId', /does not exist/],
    [route('R_1', '10.244.1.0/24'), 'name', /pattern/],
    [{ name: 'r', destinationCidr: '10.244.1.0/24' }, 'targetInstanceId', /required/],
  ])('rejects %j with a 400 naming %s', async (body, field, message) => {
    const res = await h.api.post('/routes', body);
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses a duplicate name (already_exists) and a destination already routed (cidr_in_use)', async () => {
    await h.api.post('/routes', route('a', '10.244.1.0/24'));
    await h.api.post('/routes', route('v6', 'fd00:0:0:1::/64'));
    const name = await h.api.post('/routes', route('a', '10.244.9.0/24'));
    expect(name.status).toBe(409);
    expect(name.body.error.code).toBe('already_exists');
    const dest = await h.api.post('/routes', route('b', '10.244.1.0/24', 'i-n2'));
    expect(dest.status).toBe(409);
    expect(dest.body.error.code).toBe('cidr_in_use');
    // The same IPv6 network written differently is the same destination.
    const v6 = await h.api.post('/routes', route('c', 'fd00::1:0:0:0:0/64'));
    expect(v6.status).toBe(409);
    expect(v6.body.error.code).toBe('cidr_in_use');
    // After deletion the destination is free again.
    await h.api.del('/routes/a');
    expect((await h.api.post('/routes', route('b', '10.244.1.0/24', 'i-n2'))).status).toBe(201);
  });

  it('marks routes blackholed when the target is terminated or deleted, not when it is stopped', async () => {
    await h.api.post('/routes', route('to-n1', '10.244.1.0/24', 'i-n1'));
    await h.api.post('/routes', route('to-n2', '10.244.2.0/24', 'i-n2'));
    h.dc.stopInstance('i-n1');
    expect((await h.api.get<Route>('/routes/to-n1')).body.blackhole).toBe(false);
    h.dc.terminateInstance('i-n1');
    h.dc.deleteInstance('i-n2');
    const routes = await list();
    expect(routes.map((r) => [r.name, r.blackhole])).toEqual([
      ['to-n1', true],
      ['to-n2', true],
    ]);
    expect((await h.api.get<Route>('/routes/to-n1')).body.blackhole).toBe(true);
    expect(h.dc.inventory().routes.every((r) => r.blackhole)).toBe(true);
  });

  it('a route to a terminated instance can be created, and reads as a blackhole at once', async () => {
    h.dc.terminateInstance('i-n2');
    const res = await h.api.post<Route>('/routes', route('late', '10.244.3.0/24', 'i-n2'));
    expect(res.status).toBe(201);
    expect(res.body.blackhole).toBe(true);
  });
});
