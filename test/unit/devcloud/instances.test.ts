import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Instance, LoadBalancer } from '../../../devcloud/src/index.ts';
import { start, tcp, type Harness } from './helpers.ts';

interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

describe('devcloud instances', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
  });
  afterEach(() => h.dc.stop());

  it('creates an instance with generated addresses and the zone’s region', async () => {
    const res = await h.admin.post<Instance>('/admin/instances', {
      name: 'node-a',
      zone: 'dc-west-1a',
      type: 'dc.large',
      labels: { team: 'infra' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'node-a',
      zone: 'dc-west-1a',
      region: 'dc-west-1',
      type: 'dc.large',
      state: 'running',
      labels: { team: 'infra' },
    });
    expect(res.body.id).toMatch(/^i-[0-9a-f]{16}$/);
    expect(res.body.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'node-a' },
      { type: 'InternalDNS', address: 'node-a.dc-west-1a.devcloud.internal' },
    ]);
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();
  });

  it('gets by id and by name, 404 for either when missing', async () => {
    const made = h.dc.addInstance({ name: 'node-b', id: 'i-fixed' });
    const byId = await h.api.get<Instance>('/instances/i-fixed');
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(made);
    const byName = await h.api.get<Instance>('/instances/by-name/node-b');
    expect(byName.body.id).toBe('i-fixed');
    const missing = await h.api.get('/instances/i-nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await h.api.get('/instances/by-name/nope')).status).toBe(404);
  });

  it('gets many by ids or by names in one request, counted under their own ops', async () => {
    const a = h.dc.addInstance({ name: 'node-a', id: 'i-a' });
    const b = h.dc.addInstance({ name: 'node-b', id: 'i-b' });
    h.dc.terminateInstance(b.id);
    const byIds = await h.api.get<{ items: Instance[] }>('/instances/by-ids?id=i-b&id=i-nope&id=i-a&id=i-b');
    expect(byIds.status).toBe(200);
    expect(byIds.body.items.map((i) => [i.id, i.state])).toEqual([
      ['i-b', 'terminated'],
      ['i-a', 'running'],
    ]);
    const byNames = await h.api.get<{ items: Instance[] }>('/instances/by-names?name=node-a&name=gone');
    expect(byNames.body.items).toEqual([a]);
    const counters = h.dc.inventory().counters;
    expect(counters.getInstancesByIds).toMatchObject({ method: 'GET', route: '/v1/instances/by-ids', total: 1 });
    expect(counters.getInstancesByNames?.total).toBe(1);
    expect(counters.getInstance).toBeUndefined();
  });

  it('refuses a lookup of no ids or of too many, and the reserved ids as an instance id', async () => {
    expect((await h.api.get('/instances/by-ids')).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => `id=i-${i}`).join('&');
    const tooMany = await h.api.get(`/instances/by-ids?${many}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('invalid_request');
    const reserved = await h.admin.post('/admin/instances', { name: 'x', id: 'by-ids' });
    expect(reserved.status).toBe(400);
    expect(reserved.body.error.message).toContain('not by-ids or by-names');
  });

  it('lists with name, state, zone and label filters', async () => {
    const a = h.dc.addInstance({ name: 'a', zone: 'dc-east-1a', labels: { pool: 'web', gpu: '' } });
    const b = h.dc.addInstance({ name: 'b', zone: 'dc-east-1b', labels: { pool: 'web' } });
    const c = h.dc.addInstance({ name: 'c', zone: 'dc-east-1b', labels: { pool: 'db' } });
    h.dc.stopInstance(b.id);
    h.dc.terminateInstance(c.id);
    const names = async (query: string) =>
      (await h.api.get<Page<Instance>>(`/instances${query}`)).body.items.map((i) => i.name).sort();
    expect(await names('')).toEqual(['a', 'b', 'c']);
    expect(await names('?name=b')).toEqual(['b']);
    expect(await names('?name=zzz')).toEqual([]);
    expect(await names('?state=running')).toEqual(['a']);
    expect(await names('?state=running&state=stopped')).toEqual(['a', 'b']);
    expect(await names('?zone=dc-east-1b')).toEqual(['b', 'c']);
    expect(await names('?label=pool=web')).toEqual(['a', 'b']);
    expect(await names('?label=pool=web&label=gpu')).toEqual(['a']);
    expect(await names('?label=pool=web&state=terminated')).toEqual([]);
    expect(a.labels.gpu).toBe('');
  });

  it('pages lists in id order', async () => {
    for (let n = 0; n < 5; n++) h.dc.addInstance({ name: `n${n}`, id: `i-${n}` });
    const first = await h.api.get<Page<Instance>>('/instances?limit=2');
    expect(first.body.items.map((i) => i.id)).toEqual(['i-0', 'i-1']);
    expect(first.body.nextPageToken).toBe('i-1');
    const second = await h.api.get<Page<Instance>>(`/instances?limit=2&pageToken=${first.body.nextPageToken}`);
    expect(second.body.items.map((i) => i.id)).toEqual(['i-2', 'i-3']);
    const last = await h.api.get<Page<Instance>>('/instances?limit=2&pageToken=i-3');
    expect(last.body).toEqual({ items: [expect.objectContaining({ id: 'i-4' })], nextPageToken: null });
  });

  it.each([
    [{ name: 'Bad_Name' }, 'name'],
    [{ name: 'ok', zone: 'mars-1a' }, 'zone'],
    [{ name: 'ok', color: 'red' }, 'color'],
    [{ name: 'ok', addresses: [{ type: 'PublicIP', address: '1.2.3.4' }] }, 'addresses[0].type'],
    [{ name: 'ok', addresses: [{ type: 'InternalIP', address: 'not-an-ip' }] }, 'addresses[0].address'],
    [{ name: 'ok', state: 'terminated' }, 'state'],
    [{ zone: 'dc-east-1a' }, 'name'],
  ])('rejects %j with a 400 naming %s', async (body, field) => {
    const res = await h.admin.post('/admin/instances', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.message).toContain(field);
  });

  it('refuses a duplicate name or id (409) and an internal IP another instance holds', async () => {
    h.dc.addInstance({ name: 'dup', id: 'i-dup' });
    const byName = await h.admin.post('/admin/instances', { name: 'dup' });
    expect(byName.status).toBe(409);
    expect(byName.body.error.code).toBe('already_exists');
    expect((await h.admin.post('/admin/instances', { name: 'other', id: 'i-dup' })).status).toBe(409);
    const ip = await h.admin.post('/admin/instances', {
      name: 'clash',
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    });
    expect(ip.status).toBe(409);
    expect(ip.body.error.code).toBe('address_in_use');
  });

  it('stops, starts and terminates idempotently; a terminated instance cannot start', async () => {
    const { id } = h.dc.addInstance({ name: 'life' });
    for (const [action, state] of [
      ['stop', 'stopped'],
      ['stop', 'stopped'],
      ['start', 'running'],
      ['start', 'running'],
      ['terminate', 'terminated'],
      ['terminate', 'terminated'],
    ] as const) {
      const res = await h.admin.post<Instance>(`/admin/instances/${id}/${action}`);
      expect(res.status, action).toBe(200);
      expect(res.body.state).toBe(state);
    }
    const start = await h.admin.post('/admin/instances/' + id + '/start');
    expect(start.status).toBe(409);
    expect(start.body.error.code).toBe('invalid_state');
    expect((await h.admin.post('/admin/instances/i-none/stop')).status).toBe(404);
  });

  it('patches addresses and labels; the old internal IP becomes free', async () => {
    const { id } = h.dc.addInstance({ name: 'p' });
    const res = await h.admin.patch<Instance>(`/admin/instances/${id}`, {
      addresses: [
        { type: 'InternalIP', address: '10.0.9.9' },
        { type: 'ExternalIP', address: '2001:db8::1' },
      ],
      labels: { a: 'b' },
    });
    expect(res.status).toBe(200);
    expect(res.body.addresses).toHaveLength(2);
    expect(res.body.labels).toEqual({ a: 'b' });
    const reuse = h.dc.addInstance({ name: 'q', addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] });
    expect(reuse.addresses[0]!.address).toBe('10.0.0.1');
  });

  it('deletes an instance (204, then 404) and drops it from every LB backend list', async () => {
    const keep = h.dc.addInstance({ name: 'keep' });
    const gone = h.dc.addInstance({ name: 'gone' });
    for (const name of ['lb-1', 'lb-2']) {
      const res = await h.api.post('/load-balancers', {
        name,
        listeners: [tcp(80, 30080)],
        backendInstanceIds: [keep.id, gone.id],
      });
      expect(res.status).toBe(201);
    }
    expect((await h.admin.del(`/admin/instances/${gone.id}`)).status).toBe(204);
    expect((await h.admin.del(`/admin/instances/${gone.id}`)).status).toBe(404);
    expect((await h.api.get(`/instances/${gone.id}`)).status).toBe(404);
    for (const name of ['lb-1', 'lb-2']) {
      const lb = await h.api.get<LoadBalancer>(`/load-balancers/${name}`);
      expect(lb.body.backendInstanceIds).toEqual([keep.id]);
      expect(lb.body.revision).toBe(2);
    }
    // The name is free again.
    expect(h.dc.addInstance({ name: 'gone' }).name).toBe('gone');
  });

  it('seed helpers validate like the API does', () => {
    expect(() => h.dc.addInstance({ name: 'UPPER' })).toThrow(/name/);
    expect(() => h.dc.addInstance({ name: 'x', zone: 'nowhere' })).toThrow(/zone/);
    expect(() => h.dc.stopInstance('i-missing')).toThrow(/not found/);
  });

  it('lists regions and zones', async () => {
    const regions = await h.api.get<{ items: Array<{ name: string; zones: string[] }> }>('/regions');
    expect(regions.body.items).toEqual([
      { name: 'dc-east-1', zones: ['dc-east-1a', 'dc-east-1b', 'dc-east-1c'] },
      { name: 'dc-west-1', zones: ['dc-west-1a'] },
    ]);
    const zones = await h.api.get<{ items: Array<{ name: string; region: string }> }>('/zones');
    expect(zones.body.items).toContainEqual({ name: 'dc-west-1a', region: 'dc-west-1' });
    expect(zones.body.items).toHaveLength(4);
  });
});

describe('devcloud custom zones', () => {
  it('uses the configured zones and defaults instances to the first', async () => {
    const h = await start({ zones: [{ name: 'lab-z1', region: 'lab' }] });
    try {
      expect(h.dc.addInstance({ name: 'x' })).toMatchObject({ zone: 'lab-z1', region: 'lab' });
      expect((await h.api.get<{ items: unknown[] }>('/zones')).body.items).toEqual([{ name: 'lab-z1', region: 'lab' }]);
    } finally {
      await h.dc.stop();
    }
  });
});
