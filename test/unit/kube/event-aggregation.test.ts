// client-go's correlator semantics beyond deduplication: the spam budget per object and event type, repeats
// counted before the spam filter, and the aggregation of similar events with many distinct messages.
import { describe, expect, it } from 'vitest';
import { AGGREGATE_MESSAGE_PREFIX } from '../../../host/src/kube/events/aggregator.ts';
import { type Correlation, EventCorrelator, type EventJson } from '../../../host/src/kube/events/correlator.ts';
import { EventRecorder, type EventSink } from '../../../host/src/kube/events/recorder.ts';
import { FakeClock } from '../../support/fake-clock.ts';

let seq = 0;
function event(over: Partial<Pick<EventJson, 'type' | 'reason' | 'message'>> & { object?: string } = {}): EventJson {
  const name = over.object ?? 'n1';
  return {
    metadata: { name: `${name}.${(++seq).toString(16)}`, namespace: 'default' },
    involvedObject: { kind: 'Node', name, uid: `uid-${name}` },
    reason: over.reason ?? 'R',
    message: over.message ?? 'm',
    type: over.type ?? 'Normal',
    count: 1,
    firstTimestamp: 't0',
    lastTimestamp: 't0',
    source: { component: 'c', host: 'h' },
    reportingComponent: 'c',
    reportingInstance: 'h',
  };
}

function summary(c: Correlation): string {
  if (c.action === 'drop') return 'drop';
  return `${c.action} ${c.event.count} ${c.event.message}`;
}

describe('spam filter', () => {
  it('keeps a budget per event type: Normal events that used theirs do not drop a Warning', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    for (let i = 0; i < 25; i++) expect(c.correlate(event({ reason: `N${i}` })).action).toBe('create');
    expect(c.correlate(event({ reason: 'N25' })).action).toBe('drop');
    expect(c.correlate(event({ type: 'Warning', reason: 'Failed' })).action).toBe('create');
  });

  it('counts repeats it drops: the next repeat written carries them', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const seen = Array.from({ length: 30 }, () => summary(c.correlate(event())));
    expect(seen[0]).toBe('create 1 m');
    expect(seen[24]).toBe('patch 25 m');
    expect(seen.slice(25)).toEqual(Array(5).fill('drop'));
    clock.step(300_000);
    expect(summary(c.correlate(event()))).toBe('patch 31 m');
  });
});

describe('aggregation of similar events', () => {
  const distinct = (c: EventCorrelator, from: number, to: number, over: Parameters<typeof event>[0] = {}) =>
    Array.from({ length: to - from + 1 }, (_, i) => summary(c.correlate(event({ ...over, message: `m${from + i}` }))));

  it('records the 10th distinct message as one aggregate Event whose count and message follow', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    expect(distinct(c, 1, 9)).toEqual(Array.from({ length: 9 }, (_, i) => `create 1 m${i + 1}`));
    expect(distinct(c, 10, 12)).toEqual([
      `create 1 ${AGGREGATE_MESSAGE_PREFIX}m10`,
      `patch 2 ${AGGREGATE_MESSAGE_PREFIX}m11`,
      `patch 3 ${AGGREGATE_MESSAGE_PREFIX}m12`,
    ]);
  });

  it('writes the aggregate without reporting controller and instance, as client-go', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    distinct(c, 1, 9);
    const aggregate = c.correlate(event({ message: 'm10' }));
    expect(aggregate.action === 'create' && aggregate.event).toMatchObject({
      reportingComponent: '',
      reportingInstance: '',
      source: { component: 'c', host: 'h' },
      reason: 'R',
    });
  });

  it('keeps at most 9 messages: a recent message repeats as itself, a forgotten one is aggregated', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    distinct(c, 1, 11); // remembers m3..m11 (the oldest go first)
    expect(summary(c.correlate(event({ message: 'm9' })))).toBe('patch 2 m9');
    expect(summary(c.correlate(event({ message: 'm1' })))).toBe(`patch 3 ${AGGREGATE_MESSAGE_PREFIX}m1`);
  });

  it('forgets the messages 10 minutes after the last similar event, not the first', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    distinct(c, 1, 5);
    clock.step(500_000);
    distinct(c, 6, 9);
    clock.step(500_000); // 1000 s after the first, 500 s after the last: still one window
    expect(summary(c.correlate(event({ message: 'm10' })))).toBe(`create 1 ${AGGREGATE_MESSAGE_PREFIX}m10`);
    clock.step(600_001);
    expect(summary(c.correlate(event({ message: 'm11' })))).toBe('create 1 m11');
  });

  it('does not combine events of another reason, type or object', () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    distinct(c, 1, 9);
    expect(distinct(c, 10, 10, { reason: 'Other' })).toEqual(['create 1 m10']);
    expect(distinct(c, 10, 10, { type: 'Warning' })).toEqual(['create 1 m10']);
    expect(distinct(c, 10, 10, { object: 'n2' })).toEqual(['create 1 m10']);
    expect(distinct(c, 10, 10)).toEqual([`create 1 ${AGGREGATE_MESSAGE_PREFIX}m10`]);
  });
});

describe('EventRecorder with aggregation', () => {
  it('writes 12 distinct messages of one reason as 9 Events and one aggregate with count 3', async () => {
    const stored: EventJson[] = [];
    const sink: EventSink = {
      create: (e) => {
        const made = { ...e, metadata: { ...e.metadata, resourceVersion: '1' } };
        stored.push(made);
        return Promise.resolve(made);
      },
      patch: (namespace, name, patch) => {
        const found = stored.find((e) => e.metadata.name === name && e.metadata.namespace === namespace);
        if (!found) return Promise.reject(new Error(`no event ${name}`));
        Object.assign(found, patch);
        return Promise.resolve(found);
      },
    };
    const r = new EventRecorder({ sink, component: 'service-controller', clock: new FakeClock() });
    const web = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop', uid: 'u' } };
    for (let i = 1; i <= 12; i++) r.recordEvent(web, 'Warning', 'SyncLoadBalancerFailed', `failure ${i}`);
    await r.flush();
    expect(stored.map((e) => `${e.count} ${e.message}`)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `1 failure ${i + 1}`),
      `3 ${AGGREGATE_MESSAGE_PREFIX}failure 12`,
    ]);
    expect(r.stats).toMatchObject({ created: 10, patched: 2, dropped: 0 });
  });
});
