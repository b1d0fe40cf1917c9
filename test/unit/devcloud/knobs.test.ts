import { afterEach, describe, expect, it } from 'vitest';
import { FaultInjector } from '../../../devcloud/src/faults.ts';
import type { Knobs } from '../../../devcloud/src/index.ts';
import { start, type Harness } from './helpers.ts';

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const result = await fn();
  return [result, performance.now() - t0];
};

describe('FaultInjector', () => {
  it('resolves latency per operation, then read/write, then *, then latencyMs', () => {
    const f = new FaultInjector({ latencyMs: 5, latencyByKind: { listZones: 40, read: 30, '*': 20 } });
    expect(f.delayMs('listZones')).toBe(40);
    expect(f.delayMs('getInstance')).toBe(30);
    expect(f.delayMs('createRoute')).toBe(20);
    f.set({ latencyByKind: { write: 7 } });
    expect(f.delayMs('createRoute')).toBe(7);
    expect(f.delayMs('getInstance')).toBe(5);
  });
});

describe('devcloud knobs', () => {
  let h: Harness;
  afterEach(() => h.dc.stop());

  it('delays cloud calls by the configured latency, but never admin calls', async () => {
    h = await start({ knobs: { latencyMs: 100 } });
    const [, slow] = await timed(() => h.api.get('/zones'));
    expect(slow).toBeGreaterThanOrEqual(95);
    h.dc.setKnobs({ latencyMs: 3000 });
    const [inventory, adminCall] = await timed(() => h.admin.get('/admin/inventory'));
    expect(inventory.status).toBe(200);
    expect(adminCall).toBeLessThan(1500);
  });

  it('delays only the operations named in latencyByKind', async () => {
    h = await start({ knobs: { latencyByKind: { listZones: 150, read: 3000 } } });
    const [, zones] = await timed(() => h.api.get('/zones'));
    expect(zones).toBeGreaterThanOrEqual(145);
    expect(zones).toBeLessThan(1500);
    const [deleted, write] = await timed(() => h.api.del('/routes/nothing'));
    expect(deleted.status).toBe(404);
    expect(write).toBeLessThan(1500);
  });

  it('runs slow calls concurrently: 20 calls at 300 ms take about 300 ms, not 6 s', async () => {
    h = await start({ knobs: { latencyMs: 300 } });
    const [results, elapsed] = await timed(() => Promise.all(Array.from({ length: 20 }, () => h.api.get('/zones'))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(2500);
  });

  it('fails a seeded fraction of calls with 500/503, the same ones for the same seed', async () => {
    h = await start();
    const run = async () => {
      h.dc.setKnobs({ errorRate: 0.3, errorSeed: 42 });
      const statuses: number[] = [];
      for (let n = 0; n < 200; n++) statuses.push((await h.api.get('/zones')).status);
      return statuses;
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    const failed = first.filter((s) => s !== 200);
    expect(failed.length).toBeGreaterThan(30);
    expect(failed.length).toBeLessThan(90);
    expect(new Set(failed)).toEqual(new Set([500, 503]));
    const res = await h.api.get('/zones');
    if (res.status !== 200) expect(['internal_error', 'unavailable']).toContain(res.body.error.code);
    h.dc.setKnobs({ errorSeed: 7 });
    expect(await run()).toEqual(first); // run() reseeds with 42
  });

  it('throttles the next N calls with 429 and Retry-After', async () => {
    h = await start({ knobs: { throttleNext: 2, retryAfterSeconds: 3 } });
    for (let n = 0; n < 2; n++) {
      const res = await h.api.get('/zones');
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('3');
      expect(res.body.error.code).toBe('throttled');
    }
    expect((await h.api.get('/zones')).status).toBe(200);
    expect(h.dc.knobs().throttleNext).toBe(0);
  });

  it('enforces a token bucket: a burst passes, the excess gets 429 with a whole-second Retry-After', async () => {
    // 0.2/s: even a slow machine cannot refill a token during the five quick calls.
    h = await start({ knobs: { throttle: { ratePerSec: 0.2, burst: 3 } } });
    const statuses = [];
    for (let n = 0; n < 5; n++) statuses.push(await h.api.get('/zones'));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(Number(statuses[3]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(statuses[3]!.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    h.dc.setKnobs({ throttle: null });
    expect((await h.api.get('/zones')).status).toBe(200);
  });

  it('answers every cloud call 503 during an outage, admin calls still work, until cleared', async () => {
    h = await start();
    const patched = await h.admin.patch<Knobs>('/admin/knobs', { outage: true });
    expect(patched.body.outage).toBe(true);
    for (const path of ['/zones', '/instances', '/load-balancers/x']) {
      const res = await h.api.get(path);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
    }
    expect((await h.api.post('/routes', {})).status).toBe(503);
    h.dc.addInstance({ name: 'during-outage' });
    expect((await h.admin.get('/admin/inventory')).status).toBe(200);
    await h.admin.patch('/admin/knobs', { outage: false });
    expect((await h.api.get('/zones')).status).toBe(200);
  });

  it('fails the next N calls of one operation or kind, leaving others alone', async () => {
    h = await start();
    h.dc.setKnobs({
      failNext: [
        { kind: 'createLoadBalancer', count: 2, status: 500 },
        { kind: 'read', count: 1, status: 503 },
      ],
    });
    const lb = { name: 'x', listeners: [], backendInstanceIds: [] };
    expect((await h.api.post('/load-balancers', lb)).status).toBe(500);
    expect((await h.api.get('/zones')).status).toBe(503);
    expect((await h.api.get('/zones')).status).toBe(200);
    expect((await h.api.post('/load-balancers', lb)).status).toBe(500);
    expect((await h.api.post('/load-balancers', lb)).status).toBe(201);
    expect(h.dc.knobs().failNext).toEqual([]);
    // A failed create really did nothing.
    expect(h.dc.inventory().loadBalancers).toHaveLength(1);
  });

  it('injected 429s from failNext carry Retry-After too', async () => {
    h = await start({ knobs: { failNext: [{ kind: '*', count: 1, status: 429 }] } });
    const res = await h.api.get('/regions');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('validates knob changes over HTTP and on the handle, naming the knob', async () => {
    h = await start();
    const cases: Array<[unknown, string]> = [
      [{ errorRate: 1.5 }, 'errorRate'],
      [{ latencyByKind: { nope: 5 } }, 'latencyByKind.nope'],
      [{ failNext: [{ kind: 'createThing', count: 1, status: 500 }] }, 'failNext[0].kind'],
      [{ failNext: [{ kind: 'read', count: 1, status: 404 }] }, 'failNext[0].status'],
      [{ throttle: { ratePerSec: 0, burst: 1 } }, 'throttle.ratePerSec'],
      [{ sparkles: true }, 'sparkles'],
    ];
    for (const [patch, field] of cases) {
      const res = await h.admin.patch('/admin/knobs', patch);
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.body.error.field).toBe(field);
    }
    expect(() => h.dc.setKnobs({ errorRate: -1 })).toThrow(/errorRate/);
    expect(() => h.dc.setKnobs({ latencyByKind: { nope: 5 } })).toThrow(/latencyByKind.nope/);
    expect(h.dc.knobs().errorRate).toBe(0);
  });

  it('GET shows the knobs in force and DELETE resets them all', async () => {
    h = await start({ knobs: { latencyMs: 5, outage: true, throttleNext: 4 } });
    expect((await h.admin.get<Knobs>('/admin/knobs')).body).toMatchObject({
      latencyMs: 5,
      outage: true,
      throttleNext: 4,
    });
    const reset = await h.admin.del<Knobs>('/admin/knobs');
    expect(reset.body).toEqual({
      latencyMs: 0,
      latencyByKind: {},
      errorRate: 0,
      errorSeed: null,
      throttle: null,
      throttleNext: 0,
      retryAfterSeconds: 1,
      outage: false,
      failNext: [],
      resetNext: 0,
      resetAfterNext: 0,
    });
    expect((await h.api.get('/zones')).status).toBe(200);
  });

  it('checks auth before faults: a rejected token does not use up failNext', async () => {
    h = await start({ knobs: { failNext: [{ kind: '*', count: 1, status: 500 }] } });
    const anon = await fetch(`${h.dc.url}/v1/zones`);
    expect(anon.status).toBe(401);
    expect((await h.api.get('/zones')).status).toBe(500);
  });
});
