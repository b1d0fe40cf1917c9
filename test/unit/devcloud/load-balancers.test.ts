import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadBalancer } from '../../../devcloud/src/index.ts';
import { start, tcp, type Harness } from './helpers.ts';

describe('devcloud load balancers', () => {
  let h: Harness;
  let ids: string[];
  beforeEach(async () => {
    h = await start();
    ids = ['n1', 'n2', 'n3'].map((name) => h.dc.addInstance({ name, id: `i-${name}` }).id);
  });
  afterEach(() => h.dc.stop());

  const spec = (over: Record<string, unknown> = {}) => ({
    listeners: [tcp(80, 30080), { protocol: 'UDP', port: 53, nodePort: 30053 }],
    backendInstanceIds: [ids[1], ids[0]],
    sourceRanges: ['10.0.0.0/8', '2001:db8::/32'],
    healthCheckNodePort: 32000,
    tags: { 'kubernetes.io/cluster': 'demo', 'service-uid': 'abc' },
    description: 'default/web',
    ...over,
  });

  it('creates with a VIP, sorted backends and every field echoed; GET returns the same', async () => {
    const res = await h.api.post<LoadBalancer>('/load-balancers', { name: 'a1b2c3', ...spec() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'a1b2c3',
      vip: '198.18.0.1',
      status: 'active',
      revision: 1,
      backendInstanceIds: ['i-n1', 'i-n2'],
      healthCheckNodePort: 32000,
      sourceRanges: ['10.0.0.0/8', '2001:db8::/32'],
      tags: { 'kubernetes.io/cluster': 'demo', 'service-uid': 'abc' },
      description: 'default/web',
    });
    expect(res.body.listeners).toHaveLength(2);
    const got = await h.api.get<LoadBalancer>('/load-balancers/a1b2c3');
    expect(got.body).toEqual(res.body);
  });

  it('defaults optional fields', async () => {
    const res = await h.api.post<LoadBalancer>('/load-balancers', {
      name: 'min',
      listeners: [tcp(443, 30443)],
      backendInstanceIds: [],
    });
    expect(res.body).toMatchObject({ sourceRanges: [], healthCheckNodePort: null, tags: {}, description: '' });
  });

  it('refuses a second LB with the same name (409) without using a VIP', async () => {
    await h.api.post('/load-balancers', { name: 'dup', ...spec() });
    const again = await h.api.post('/load-balancers', { name: 'dup', ...spec() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_exists');
    expect(h.dc.inventory().vipPool.used).toBe(1);
  });

  it.each([
    [{ name: 'a'.repeat(64) }, 'name'],
    [{ name: 'Upper' }, 'name'],
    [{ name: '-lead' }, 'name'],
    [{ name: 'ok', listeners: [tcp(70000, 30000)] }, 'listeners[0].port'],
    [{ name: 'ok', listeners: [{ protocol: 'HTTP', port: 80, nodePort: 30080 }] }, 'listeners[0].protocol'],
    [{ name: 'ok', listeners: [tcp(80, 30080), tcp(80, 30081)] }, 'listeners[1]'],
    [{ name: 'ok', listeners: [{ protocol: 'TCP', port: 80 }] }, 'listeners[0].nodePort'],
    [{ name: 'ok', backendInstanceIds: ['i-n1', 'i-ghost'] }, 'backendInstanceIds[1]'],
    [{ name: 'ok', backendInstanceIds: ['i-n1', 'i-n1'] }, 'backendInstanceIds[1]'],
    [{ name: 'ok', sourceRanges: ['10.0.0.0/8', '10.0.0.0/33'] }, 'sourceRanges[1]'],
    [{ name: 'ok', sourceRanges: ['banana'] }, 'sourceRanges[0]'],
    [{ name: 'ok', healthCheckNodePort: 0 }, 'healthCheckNodePort'],
    [{ name: 'ok', listeners: [{ protocol: 'TCP', port: '80', nodePort: 30080 }] }, 'listeners[0].port'],
    [{ name: 'ok', tags: { owner: 7 } }, 'tags.owner'],
    [{ name: 'ok', description: 'x'.repeat(256) }, 'description'],
    [{ name: 'ok', surprise: true }, 'surprise'],
  ])('rejects %j with a 400 naming %s', async (over, field) => {
    const res = await h.api.post('/load-balancers', { ...spec(), ...over });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe(field);
    expect(h.dc.inventory().loadBalancers).toHaveLength(0);
  });

  it('accepts a 63-character name and source ranges with host bits (as Kubernetes does)', async () => {
    const name = `a${'0'.repeat(62)}`;
    const res = await h.api.post('/load-balancers', { ...spec({ sourceRanges: ['192.168.1.7/24'] }), name });
    expect(res.status).toBe(201);
  });

  it('PUT replaces the spec; the same PUT twice changes nothing, not even revision', async () => {
    await h.api.post('/load-balancers', { name: 'web', ...spec() });
    const next = spec({ backendInstanceIds: [ids[2], ids[0]], sourceRanges: [], healthCheckNodePort: null });
    const first = await h.api.put<LoadBalancer>('/load-balancers/web', next);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ revision: 2, backendInstanceIds: ['i-n1', 'i-n3'], healthCheckNodePort: null });
    const second = await h.api.put<LoadBalancer>('/load-balancers/web', {
      ...next,
      backendInstanceIds: [ids[0], ids[2]],
    });
    expect(second.body).toEqual(first.body);
    expect(second.body.vip).toBe('198.18.0.1');
  });

  it('PUT omitting optional fields resets them', async () => {
    await h.api.post('/load-balancers', { name: 'web', ...spec() });
    const res = await h.api.put<LoadBalancer>('/load-balancers/web', {
      listeners: [tcp(80, 30080)],
      backendInstanceIds: [],
    });
    expect(res.body).toMatchObject({ tags: {}, description: '', sourceRanges: [], revision: 2 });
  });

  it('PUT on a missing LB is 404; PUT cannot change name or VIP; invalid PUT changes nothing', async () => {
    expect((await h.api.put('/load-balancers/nope', spec())).status).toBe(404);
    await h.api.post('/load-balancers', { name: 'web', ...spec() });
    const vip = await h.api.put('/load-balancers/web', { ...spec(), vip: '198.18.0.9' });
    expect(vip.status).toBe(400);
    expect(vip.body.error.field).toBe('vip');
    const bad = await h.api.put('/load-balancers/web', spec({ backendInstanceIds: ['i-ghost'] }));
    expect(bad.status).toBe(400);
    expect((await h.api.get<LoadBalancer>('/load-balancers/web')).body.revision).toBe(1);
  });

  it('DELETE is 204, then 404 (documented: treat 404 as already deleted)', async () => {
    await h.api.post('/load-balancers', { name: 'web', ...spec() });
    expect((await h.api.del('/load-balancers/web')).status).toBe(204);
    const again = await h.api.del('/load-balancers/web');
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
    expect((await h.api.get('/load-balancers/web')).status).toBe(404);
  });

  it('lists in name order, filtered by tags', async () => {
    await h.api.post('/load-balancers', { name: 'b', ...spec({ tags: { cluster: 'one' } }) });
    await h.api.post('/load-balancers', { name: 'a', ...spec({ tags: { cluster: 'one', extra: '' } }) });
    await h.api.post('/load-balancers', { name: 'c', ...spec({ tags: { cluster: 'two' } }) });
    const names = async (q: string) =>
      (await h.api.get<{ items: LoadBalancer[] }>(`/load-balancers${q}`)).body.items.map((lb) => lb.name);
    expect(await names('')).toEqual(['a', 'b', 'c']);
    expect(await names('?tag=cluster=one')).toEqual(['a', 'b']);
    expect(await names('?tag=cluster=one&tag=extra')).toEqual(['a']);
    expect(await names('?limit=1&pageToken=a')).toEqual(['b']);
  });
});
