// Per-handler resync periods, as client-go's sharedIndexInformer keeps them.
import { describe, expect, it } from 'vitest';
import { defaultResyncPeriodMs } from '../../../host/src/app/informers.ts';
import type { Clock } from '../../../host/src/kube/clock.ts';
import { FakeClock } from '../../../host/src/kube/fake-clock.ts';
import { Informer } from '../../../host/src/kube/informer/informer.ts';
import { ResyncSchedule } from '../../../host/src/kube/informer/resync.ts';
import { FakeApiserver, type FakeNode } from './support/fake-apiserver.ts';

describe('ResyncSchedule', () => {
  it('lowers the check period to a shorter handler period asked for before the start', () => {
    const s = new ResyncSchedule<string>(12 * 3_600_000);
    expect(s.add('default', 12 * 3_600_000, 0, false)).toBe(12 * 3_600_000);
    expect(s.add('services', 30_000, 0, false)).toBe(30_000);
    expect(s.checkPeriodMs).toBe(30_000);
    expect(s.add('nodes', 100_000, 0, false)).toBe(100_000);
    expect(s.due(29_999)).toEqual([]);
    expect(s.due(30_000)).toEqual(['services']);
    expect(s.due(60_000)).toEqual(['services']);
    expect(s.due(90_000)).toEqual(['services']);
    expect(s.due(100_000)).toEqual(['nodes']);
  });

  it('raises a shorter period to the check period once started, and a sub-second one to 1 s', () => {
    const s = new ResyncSchedule<string>(30_000);
    expect(s.add('late', 5_000, 0, true)).toBe(30_000);
    const t = new ResyncSchedule<string>(60_000);
    expect(t.add('fast', 10, 0, false)).toBe(1_000);
  });

  it('never resyncs a handler asking for 0, nor any handler of an informer without a default period', () => {
    const s = new ResyncSchedule<string>(30_000);
    expect(s.add('never', 0, 0, false)).toBe(0);
    expect(s.due(3_600_000)).toEqual([]);
    const off = new ResyncSchedule<string>(0);
    expect(off.add('wants', 30_000, 0, false)).toBe(0);
    expect(off.checkPeriodMs).toBe(0);
  });
});

describe('Informer resync per handler', () => {
  it('redelivers the cache to each handler at its own period, old === new', async () => {
    const clock = new FakeClock();
    const api = new FakeApiserver();
    api.upsert('a');
    const informer = new Informer<FakeNode>({ name: 'nodes', listWatcher: api, clock, resyncPeriodMs: 3_600_000 });
    const seen: Record<string, number> = { fast: 0, slow: 0, default: 0 };
    const count = (name: string) => ({
      onUpdate: (o: FakeNode, n: FakeNode) => {
        expect(o).toBe(n);
        seen[name] = (seen[name] ?? 0) + 1;
      },
    });
    informer.addEventHandler(count('fast'), 30_000);
    informer.addEventHandler(count('slow'), 100_000);
    const remove = informer.addEventHandler(count('default'));
    informer.start();
    await clock.advance(0);
    await clock.advance(90_000);
    expect(seen).toEqual({ fast: 3, slow: 0, default: 0 });
    await clock.advance(30_000);
    expect(seen).toEqual({ fast: 4, slow: 1, default: 0 });
    remove();
    await clock.advance(3_600_000);
    expect(seen.default).toBe(0);
    expect(seen.fast).toBe(4 + 120);
    await informer.stop();
  });
});

describe('Informer resync on timers that fire early', () => {
  it('still resyncs every period when the check timer fires a millisecond before the clock says it is due', async () => {
    // Node's setTimeout may fire up to a millisecond before performance.now()/Date.now() show the delay passed.
    const fake = new FakeClock();
    const early: Clock = { now: () => fake.now(), setTimer: (ms, fn) => fake.setTimer(Math.max(0, ms - 1), fn) };
    const api = new FakeApiserver();
    api.upsert('a');
    const informer = new Informer<FakeNode>({ name: 'nodes', listWatcher: api, clock: early, resyncPeriodMs: 1_000 });
    let resyncs = 0;
    informer.addEventHandler({
      onUpdate: () => {
        resyncs++;
      },
    });
    informer.start();
    await fake.advance(0);
    await fake.advance(10_000);
    expect(resyncs).toBeGreaterThanOrEqual(10);
    await informer.stop();
  });
});

describe("the CCM's default resync", () => {
  it('is upstream ResyncPeriod: 12 h times a factor drawn in [1, 2)', () => {
    expect(defaultResyncPeriodMs(undefined, () => 0)).toBe(12 * 3_600_000);
    expect(defaultResyncPeriodMs(undefined, () => 0.5)).toBe(18 * 3_600_000);
    // --min-resync-period=1h: between one and two hours.
    expect(defaultResyncPeriodMs(3_600_000, () => 0.25)).toBe(4_500_000);
  });
});
