import { afterEach, describe, expect, it } from 'vitest';
import type { LoadBalancer } from '../../../devcloud/src/index.ts';
import { IpPool, PoolExhaustedError } from '../../../devcloud/src/net/ip-pool.ts';
import { start, tcp, type Harness } from './helpers.ts';

describe('IpPool', () => {
  it('skips network and broadcast addresses, and walks forward past released ones', () => {
    const pool = new IpPool(['192.0.2.0/30']);
    expect(pool.size).toBe(2);
    expect(pool.allocate()).toBe('192.0.2.1');
    expect(pool.allocate()).toBe('192.0.2.2');
    expect(() => pool.allocate()).toThrow(PoolExhaustedError);
    pool.release('192.0.2.1');
    expect(pool.allocate()).toBe('192.0.2.1');
  });

  it('does not reuse a released address before the cursor wraps', () => {
    const pool = new IpPool(['192.0.2.0/29']);
    const first = pool.allocate();
    pool.release(first);
    expect(pool.allocate()).not.toBe(first);
  });

  it('uses every address of /31 and /32 and spans several CIDRs', () => {
    const pool = new IpPool(['192.0.2.10/32', '198.51.100.0/31']);
    expect(pool.size).toBe(3);
    expect([pool.allocate(), pool.allocate(), pool.allocate()]).toEqual(['192.0.2.10', '198.51.100.0', '198.51.100.1']);
    expect(pool.allocated()).toEqual(['192.0.2.10', '198.51.100.0', '198.51.100.1']);
  });

  it('reserves specific addresses and reports outside or in-use ones', () => {
    const pool = new IpPool(['10.1.0.0/24']);
    expect(pool.reserve('10.1.0.5')).toBe('ok');
    expect(pool.reserve('10.1.0.5')).toBe('in-use');
    expect(pool.reserve('10.1.0.0')).toBe('outside');
    expect(pool.reserve('10.2.0.5')).toBe('outside');
    expect(pool.used).toBe(1);
  });

  it('rejects bad, IPv6 and overlapping CIDRs', () => {
    expect(() => new IpPool(['10.0.0.0/33'])).toThrow(/not an IPv4 CIDR/);
    expect(() => new IpPool(['2001:db8::/64'])).toThrow(/IPv4/);
    expect(() => new IpPool(['10.0.0.0/16', '10.0.5.0/24'])).toThrow(/overlaps/);
  });
});

describe('devcloud VIP allocation', () => {
  let h: Harness;
  afterEach(() => h.dc.stop());
  const lb = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    listeners: [tcp(80, 30080)],
    backendInstanceIds: [],
    ...extra,
  });

  it('allocates distinct VIPs, answers 409 vip_pool_exhausted when out, and frees VIPs on delete', async () => {
    h = await start({ vipPool: ['203.0.113.0/30'] });
    const a = await h.api.post<LoadBalancer>('/load-balancers', lb('a'));
    const b = await h.api.post<LoadBalancer>('/load-balancers', lb('b'));
    expect([a.body.vip, b.body.vip]).toEqual(['203.0.113.1', '203.0.113.2']);
    const c = await h.api.post('/load-balancers', lb('c'));
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('vip_pool_exhausted');
    expect(c.body.error.message).toMatch(/2 of 2 in use/);
    expect(h.dc.inventory().vipPool).toMatchObject({ size: 2, used: 2, free: 0 });

    await h.api.del('/load-balancers/a');
    expect(h.dc.inventory().vipPool).toMatchObject({ used: 1, free: 1, allocated: ['203.0.113.2'] });
    const d = await h.api.post<LoadBalancer>('/load-balancers', lb('d'));
    expect(d.status).toBe(201);
    expect(d.body.vip).toBe('203.0.113.1');
  });

  it('honours a requested VIP: in the pool and free, else 409 vip_in_use or 400 outside the pool', async () => {
    h = await start({ vipPool: ['203.0.113.0/24'] });
    const want = await h.api.post<LoadBalancer>('/load-balancers', lb('a', { vip: '203.0.113.77' }));
    expect(want.body.vip).toBe('203.0.113.77');
    const taken = await h.api.post('/load-balancers', lb('b', { vip: '203.0.113.77' }));
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('vip_in_use');
    const outside = await h.api.post('/load-balancers', lb('c', { vip: '10.0.0.1' }));
    expect(outside.status).toBe(400);
    expect(outside.body.error.field).toBe('vip');
  });

  it('hands out 1,000 unique VIPs from the default pool', async () => {
    h = await start();
    const vips = new Set<string>();
    for (let n = 0; n < 1000; n++) {
      const res = await h.api.post<LoadBalancer>('/load-balancers', lb(`lb-${n}`));
      vips.add(res.body.vip);
    }
    expect(vips.size).toBe(1000);
    expect(h.dc.inventory().vipPool.used).toBe(1000);
  });
});
