import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../../host/src/kube/client/errors.ts';
import { type EventJson, EventCorrelator, type EventPatch } from '../../../host/src/kube/events/correlator.ts';
import { EventRecorder, type EventSink } from '../../../host/src/kube/events/recorder.ts';
import { createKlogLogger } from '../../../host/src/log/logger.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', uid: 'uid-1', resourceVersion: '42' },
};
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-2', resourceVersion: '7' },
};

class FakeSink implements EventSink {
  events = new Map<string, EventJson>();
  calls: string[] = [];
  failures: unknown[] = [];
  private rv = 0;

  create(event: EventJson): Promise<EventJson> {
    this.calls.push(`create ${event.metadata.namespace}/${event.metadata.name}`);
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    const key = `${event.metadata.namespace}/${event.metadata.name}`;
    if (this.events.has(key))
      return Promise.reject(new KubeApiError({ code: 409, reason: 'AlreadyExists', message: key }));
    const stored = structuredClone({ ...event, metadata: { ...event.metadata, resourceVersion: String(++this.rv) } });
    this.events.set(key, stored);
    return Promise.resolve(structuredClone(stored));
  }

  patch(namespace: string, name: string, patch: EventPatch): Promise<EventJson> {
    this.calls.push(`patch ${namespace}/${name} count=${patch.count}`);
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    const existing = this.events.get(`${namespace}/${name}`);
    if (!existing) return Promise.reject(new KubeApiError({ code: 404, reason: 'NotFound', message: name }));
    Object.assign(existing, patch);
    existing.metadata.resourceVersion = String(++this.rv);
    return Promise.resolve(structuredClone(existing));
  }
}

function recorder(
  sink: EventSink,
  clock: FakeClock,
  extra: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {},
) {
  return new EventRecorder({
    sink,
    component: 'cloud-node-controller',
    host: 'ccm-0',
    clock,
    retryDelayMs: 1000,
    ...extra,
  });
}

describe('EventRecorder', () => {
  it('creates an Event with the involved object, source and timestamps; Node events go to "default"', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 250));
    const sink = new FakeSink();
    const r = recorder(sink, clock);
    r.recordEvent(node, 'Normal', 'Synced', 'Node synced successfully');
    await r.flush();
    const [event] = [...sink.events.values()];
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'default' },
      involvedObject: { kind: 'Node', apiVersion: 'v1', name: 'n1', uid: 'uid-1', resourceVersion: '42' },
      reason: 'Synced',
      message: 'Node synced successfully',
      type: 'Normal',
      count: 1,
      firstTimestamp: '2026-01-01T12:00:00Z',
      lastTimestamp: '2026-01-01T12:00:00Z',
      source: { component: 'cloud-node-controller', host: 'ccm-0' },
      reportingComponent: 'cloud-node-controller',
      reportingInstance: 'ccm-0',
    });
    expect(event?.metadata.name).toMatch(/^n1\.[0-9a-f]+$/);
    expect(event?.involvedObject.namespace).toBeUndefined();
  });

  it('puts events about namespaced objects in their namespace', async () => {
    const sink = new FakeSink();
    const r = recorder(sink, new FakeClock());
    r.recordEvent(service, 'Warning', 'SyncLoadBalancerFailed', 'boom');
    await r.flush();
    expect([...sink.events.values()][0]).toMatchObject({ metadata: { namespace: 'shop' }, type: 'Warning' });
  });

  it('deduplicates: the same object+reason+message patches count and lastTimestamp of the first Event', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const sink = new FakeSink();
    const r = recorder(sink, clock);
    r.recordEvent(node, 'Normal', 'Synced', 'same');
    await r.flush();
    clock.step(5_000);
    r.recordEvent(node, 'Normal', 'Synced', 'same');
    r.recordEvent(node, 'Normal', 'Synced', 'same');
    r.recordEvent(node, 'Normal', 'Synced', 'different message');
    await r.flush();
    expect(sink.events.size).toBe(2);
    const name = [...sink.events.keys()][0] ?? '';
    expect(sink.calls).toEqual([
      `create ${name}`,
      `patch ${name} count=2`,
      `patch ${name} count=3`,
      expect.stringMatching(/^create default\/n1\./),
    ]);
    const first = sink.events.get(name);
    expect(first).toMatchObject({
      count: 3,
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:05Z',
    });
    expect(r.stats).toMatchObject({ recorded: 4, created: 2, patched: 2, dropped: 0 });
  });

  it('does not merge events of different types, reasons or objects', async () => {
    const sink = new FakeSink();
    const r = recorder(sink, new FakeClock());
    r.recordEvent(node, 'Normal', 'A', 'm');
    r.recordEvent(node, 'Warning', 'A', 'm');
    r.recordEvent(node, 'Normal', 'B', 'm');
    r.recordEvent({ ...node, metadata: { ...node.metadata, name: 'n2', uid: 'uid-3' } }, 'Normal', 'A', 'm');
    await r.flush();
    expect(sink.events.size).toBe(4);
    expect(new Set([...sink.events.keys()]).size).toBe(4);
  });

  it('re-creates the Event (keeping the running count) when the one to patch has expired', async () => {
    const sink = new FakeSink();
    const r = recorder(sink, new FakeClock());
    r.recordEvent(node, 'Normal', 'Synced', 'x');
    await r.flush();
    const name = [...sink.events.keys()][0] ?? '';
    sink.events.clear(); // TTL expiry
    r.recordEvent(node, 'Normal', 'Synced', 'x');
    await r.flush();
    expect(sink.calls).toEqual([`create ${name}`, `patch ${name} count=2`, `create ${name}`]);
    expect(sink.events.get(name)?.count).toBe(2);
  });

  it('retries transport errors and 5xx, but not rejections such as 422', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const r = recorder(sink, clock, { maxTries: 3 });
    sink.failures.push(
      new Error('ECONNRESET'),
      new KubeApiError({ code: 503, reason: 'ServiceUnavailable', message: 'x' }),
    );
    r.recordEvent(node, 'Normal', 'Synced', 'x');
    const flushed = r.flush();
    await clock.advance(5_000);
    await flushed;
    expect(sink.calls).toHaveLength(3);
    expect(sink.events.size).toBe(1);

    sink.failures.push(new KubeApiError({ code: 422, reason: 'Invalid', message: 'bad' }));
    r.recordEvent(node, 'Warning', 'Other', 'y');
    await r.flush();
    expect(sink.calls).toHaveLength(4);
    expect(r.stats.failed).toBe(1);
  });

  it('gives up after maxTries', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const r = recorder(sink, clock, { maxTries: 2 });
    sink.failures.push(new Error('down'), new Error('down'), new Error('down'));
    r.recordEvent(node, 'Normal', 'Synced', 'x');
    const flushed = r.flush();
    await clock.advance(5_000);
    await flushed;
    expect(sink.calls).toHaveLength(2);
    expect(r.stats.failed).toBe(1);
  });

  it('never throws or blocks the caller: a full queue drops and counts, bad objects are dropped', async () => {
    const sink = new FakeSink();
    let release: () => void = () => {};
    const slow: EventSink = {
      create: (e) => new Promise((resolve) => (release = () => resolve(sink.create(e)))),
      patch: (ns, n, p) => sink.patch(ns, n, p),
    };
    const r = recorder(slow, new FakeClock(), { queueSize: 3 });
    for (let i = 0; i < 10; i++) r.recordEvent(node, 'Normal', `R${i}`, 'm'); // 1 in flight, 3 queued, 6 dropped
    expect(r.stats.dropped).toBe(6);
    expect(() => r.recordEvent({ metadata: { name: 'x' } }, 'Normal', 'R', 'm')).not.toThrow();
    expect(r.stats.dropped).toBe(7);
    const sinkThatThrows: EventSink = {
      create: () => {
        throw new Error('sync throw');
      },
      patch: () => {
        throw new Error('sync throw');
      },
    };
    const r2 = recorder(sinkThatThrows, new FakeClock(), { maxTries: 1 });
    expect(() => r2.recordEvent(node, 'Normal', 'R', 'm')).not.toThrow();
    await r2.flush();
    expect(r2.stats.failed).toBe(1);
    for (let i = 0; i < 4; i++) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await r.flush();
    expect(sink.events.size).toBe(4);
  });

  it('stop writes what is pending, then refuses new events', async () => {
    const sink = new FakeSink();
    const r = recorder(sink, new FakeClock());
    r.recordEvent(node, 'Normal', 'A', 'm');
    r.recordEvent(node, 'Normal', 'B', 'm');
    await r.stop();
    expect(sink.events.size).toBe(2);
    r.recordEvent(node, 'Normal', 'C', 'm');
    await r.flush();
    expect(sink.events.size).toBe(2);
    expect(r.stats.dropped).toBe(1);
  });
});

describe('EventCorrelator', () => {
  function event(name: string, message = 'm', reason = 'R'): EventJson {
    return {
      metadata: { name: `${name}.1`, namespace: 'default' },
      involvedObject: { kind: 'Node', name, uid: name },
      reason,
      message,
      type: 'Normal',
      count: 1,
      firstTimestamp: 't0',
      lastTimestamp: 't0',
      source: { component: 'c' },
      reportingComponent: 'c',
      reportingInstance: '',
    };
  }

  it('filters spam per object: burst 25, then one per 5 minutes', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    // Distinct reasons: distinct messages of one reason would be aggregated after 10.
    const actions = Array.from({ length: 30 }, (_, i) => c.correlate(event('n1', 'm', `R${i}`)).action);
    expect(actions.filter((a) => a === 'create')).toHaveLength(25);
    expect(actions.slice(25)).toEqual(['drop', 'drop', 'drop', 'drop', 'drop']);
    expect(c.correlate(event('n2')).action).toBe('create'); // another object has its own budget
    clock.step(300_000);
    expect(c.correlate(event('n1', 'later', 'L1')).action).toBe('create');
    expect(c.correlate(event('n1', 'later', 'L2')).action).toBe('drop');
  });

  it('forgets the least recently seen events beyond its cache size', () => {
    const c = new EventCorrelator({ cacheSize: 2 });
    expect(c.correlate(event('a')).action).toBe('create');
    expect(c.correlate(event('b')).action).toBe('create');
    expect(c.correlate(event('a')).action).toBe('patch'); // a is now the most recent
    expect(c.correlate(event('c')).action).toBe('create'); // evicts b
    expect(c.correlate(event('a')).action).toBe('patch');
    expect(c.correlate(event('b')).action).toBe('create');
  });
});

describe('EventRecorder logs', () => {
  it('every Event recorded as "Event occurred" at v 0, as the cloud controllers\' broadcasters do', async () => {
    const lines: string[] = [];
    const logger = createKlogLogger({ format: 'text', verbosity: 0, write: (l) => lines.push(l), caller: () => 'e:1' });
    const sink = new FakeSink();
    const r = recorder(sink, new FakeClock(), { logger });
    r.recordEvent(service, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    r.recordEvent(node, 'Normal', 'Synced', 'Node synced successfully');
    await r.flush();
    expect(lines.map((l) => l.slice(l.indexOf('] ') + 2))).toEqual([
      '"Event occurred" object="shop/web" fieldPath="" kind="Service" apiVersion="v1" type="Normal" reason="EnsuringLoadBalancer" message="Ensuring load balancer"\n',
      '"Event occurred" object="n1" fieldPath="" kind="Node" apiVersion="v1" type="Normal" reason="Synced" message="Node synced successfully"\n',
    ]);
  });
});
