import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../../host/src/kube/client/errors.ts';
import { FakeClock, flushMicrotasks } from '../../support/fake-clock.ts';
import {
  type DeletedFinalStateUnknown,
  deletedObject,
  Informer,
  type InformerOptions,
  isTombstone,
} from '../../../host/src/kube/informer/informer.ts';
import type { LogFields, Logger } from '../../../host/src/log/logger.ts';
import { FakeApiserver, type FakeNode } from './support/fake-apiserver.ts';

type Note =
  | { type: 'add'; name: string; initial: boolean }
  | { type: 'update'; name: string; oldRV: string | undefined; newRV: string | undefined }
  | { type: 'delete'; name: string; tombstone: boolean };

function recordingLogger(lines: { level: string; msg: string; fields?: LogFields }[]): Logger {
  const make = (): Logger => ({
    debug: (msg, fields) => lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
    v: (n) => ({
      enabled: true,
      info: (msg, fields) => lines.push({ level: `v${n}`, msg, fields }),
      print: (msg) => lines.push({ level: `v${n}`, msg }),
    }),
    child: () => make(),
  });
  return make();
}

function setup(extra: Partial<InformerOptions<FakeNode>> = {}) {
  const clock = new FakeClock();
  const api = new FakeApiserver();
  const logs: { level: string; msg: string; fields?: LogFields }[] = [];
  const informer = new Informer<FakeNode>({
    name: 'nodes',
    listWatcher: api,
    clock,
    logger: recordingLogger(logs),
    backoff: { random: () => 0 }, // no jitter: 800, 1600, 3200 ... ms
    ...extra,
  });
  const notes: Note[] = [];
  informer.addEventHandler({
    onAdd: (obj, initial) => void notes.push({ type: 'add', name: obj.metadata.name, initial }),
    onUpdate: (o, n) =>
      void notes.push({
        type: 'update',
        name: n.metadata.name,
        oldRV: o.metadata.resourceVersion,
        newRV: n.metadata.resourceVersion,
      }),
    onDelete: (d) =>
      void notes.push({ type: 'delete', name: deletedObject(d).metadata.name, tombstone: isTombstone(d) }),
  });
  return { clock, api, informer, notes, logs };
}

/** With a 10 s idle timeout and the last event (or the watch's start) now: the watch ends after exactly 10 s. */
async function expectRestartAfterSilence({
  api,
  informer,
  clock,
}: Pick<ReturnType<typeof setup>, 'api' | 'informer' | 'clock'>) {
  await clock.advance(9_999);
  expect(api.watchCalls).toHaveLength(1);
  await clock.advance(1);
  expect(informer.stats.lastError).toMatch(/silent/);
  await clock.advance(800);
  expect(api.watchCalls).toHaveLength(2);
  await informer.stop();
}

describe('Informer', () => {
  it('lists, marks synced, then watches from the list resourceVersion and applies add/update/delete', async () => {
    const { api, informer, notes, clock } = setup();
    api.upsert('a');
    api.upsert('b');
    expect(informer.hasSynced()).toBe(false);
    const synced = informer.waitForSync();
    informer.start();
    await clock.advance(0);
    expect(await synced).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(notes).toEqual([
      { type: 'add', name: 'a', initial: true },
      { type: 'add', name: 'b', initial: true },
    ]);
    expect(api.watchCalls).toEqual(['102']);

    api.upsert('c');
    api.upsert('a', { zone: 'z1' });
    api.remove('b');
    await clock.advance(0);
    expect(notes.slice(2)).toEqual([
      { type: 'add', name: 'c', initial: false },
      { type: 'update', name: 'a', oldRV: '101', newRV: '104' },
      { type: 'delete', name: 'b', tombstone: false },
    ]);
    expect(informer.cache.listKeys().sort()).toEqual(['a', 'c']);
    expect(informer.cache.get('a')?.metadata.labels).toEqual({ zone: 'z1' });
    expect(informer.lastSyncResourceVersion()).toBe('105');
    await informer.stop();
  });

  it('drops managedFields from listed and watched objects and applies the trim function', async () => {
    const { api, informer, clock } = setup({
      trim: (n) => ({ ...n, spec: { providerID: 'trimmed' } }),
    });
    api.upsert('a');
    informer.start();
    await clock.advance(0);
    api.upsert('b');
    await clock.advance(0);
    for (const key of ['a', 'b']) {
      const obj = informer.cache.get(key);
      expect(obj?.metadata.managedFields).toBeUndefined();
      expect(obj?.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(obj?.spec?.providerID).toBe('trimmed');
    }
    await informer.stop();
  });

  it('on a watch error backs off, then resumes from the last resourceVersion without relisting', async () => {
    const { api, informer, notes, clock, logs } = setup();
    api.upsert('a');
    informer.start();
    await clock.advance(0);
    api.upsert('b'); // rv 102, seen by the watch
    await clock.advance(0);
    api.breakWatches();
    api.upsert('c'); // while disconnected
    await clock.advance(799);
    expect(api.watchCalls).toEqual(['101']);
    await clock.advance(1);
    expect(api.watchCalls).toEqual(['101', '102']);
    expect(api.listCalls).toBe(1);
    expect(notes.map((n) => `${n.type}:${n.name}`)).toEqual(['add:a', 'add:b', 'add:c']);
    expect(informer.stats.failures).toBe(1);
    expect(logs.some((l) => l.level === 'warn' && l.msg === 'watch failed')).toBe(true);
    await informer.stop();
  });

  it('backs off exponentially across repeated failures', async () => {
    const { api, informer, clock } = setup();
    informer.start();
    await clock.advance(0);
    const times: number[] = [];
    const t0 = clock.now();
    for (let i = 0; i < 4; i++) {
      const calls = api.watchCalls.length;
      api.breakWatches();
      while (api.watchCalls.length === calls) await clock.advance(100);
      times.push(clock.now() - t0);
    }
    // 800, +1600, +3200, +6400 (advanced in 100 ms steps)
    expect(times).toEqual([800, 2400, 5600, 12000]);
    await informer.stop();
  });

  it('on 410 relists at once: delivers updates, adds, and tombstones for objects that vanished', async () => {
    const { api, informer, notes, clock } = setup();
    api.upsert('keep');
    api.upsert('gone');
    informer.start();
    await clock.advance(0);
    api.breakWatches();
    api.upsert('new');
    api.remove('gone');
    api.compact(); // history lost: resuming from rv 102 gets 410
    await clock.advance(800); // backoff after the broken watch, then the 410, then an immediate relist
    expect(api.listCalls).toBe(2);
    const tail = notes.slice(2);
    expect(tail).toContainEqual({ type: 'update', name: 'keep', oldRV: '101', newRV: '101' });
    expect(tail).toContainEqual({ type: 'add', name: 'new', initial: false });
    expect(tail).toContainEqual({ type: 'delete', name: 'gone', tombstone: true });
    expect(informer.cache.listKeys().sort()).toEqual(['keep', 'new']);
    expect(api.watchCalls.at(-1)).toBe(String(informer.lastSyncResourceVersion()));
    await informer.stop();
  });

  it('a tombstone carries the key and the last known state', async () => {
    const { api, informer, clock } = setup();
    const deleted: DeletedFinalStateUnknown<FakeNode>[] = [];
    informer.addEventHandler({ onDelete: (d) => void (isTombstone(d) && deleted.push(d)) });
    api.upsert('x', { last: 'known' });
    informer.start();
    await clock.advance(0);
    api.breakWatches();
    api.remove('x'); // while disconnected
    api.failNextWatch = new KubeApiError({ code: 410, reason: 'Expired', message: 'gone' });
    await clock.advance(800);
    expect(deleted).toEqual([
      {
        key: 'x',
        obj: expect.objectContaining({ metadata: expect.objectContaining({ labels: { last: 'known' } }) }),
        finalStateUnknown: true,
      },
    ]);
    await informer.stop();
  });

  it('treats an ERROR event with code 410 in the stream as expired and relists', async () => {
    const { api, informer, clock } = setup();
    informer.start();
    await clock.advance(0);
    api.send({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired', message: 'too old' } as never,
    });
    await clock.advance(0);
    expect(api.listCalls).toBe(2);
    await informer.stop();
  });

  it('treats any other ERROR event as a failure with backoff, resuming without a relist', async () => {
    const { api, informer, clock } = setup();
    informer.start();
    await clock.advance(0);
    api.send({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', code: 500, reason: 'InternalError', message: 'boom' } as never,
    });
    await clock.advance(0);
    expect(informer.stats.lastError).toBe('boom');
    await clock.advance(800);
    expect(api.listCalls).toBe(1);
    expect(api.watchCalls).toHaveLength(2);
    await informer.stop();
  });

  it('retries a failing list with backoff and is not synced until a list succeeds', async () => {
    const { api, informer, clock } = setup();
    api.failLists = 2;
    api.upsert('a');
    informer.start();
    await clock.advance(0);
    expect(informer.hasSynced()).toBe(false);
    await clock.advance(800);
    expect(informer.hasSynced()).toBe(false);
    await clock.advance(1600);
    expect(api.listCalls).toBe(3);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.cache.listKeys()).toEqual(['a']);
    await informer.stop();
  });

  it('re-watches at once after a long watch ends cleanly, but backs off after a quick quiet close', async () => {
    const { api, informer, clock } = setup({ backoffResetAfterMs: 60_000 });
    informer.start();
    await clock.advance(0);
    api.closeWatches(); // closed immediately: suspicious
    await clock.advance(0);
    expect(api.watchCalls).toHaveLength(1);
    await clock.advance(800);
    expect(api.watchCalls).toHaveLength(2);
    await clock.advance(60_000);
    api.closeWatches(); // a normal server-side timeout
    await clock.advance(0);
    expect(api.watchCalls).toHaveLength(3);
    expect(api.listCalls).toBe(1);
    await informer.stop();
  });

  it('advances its resourceVersion on bookmarks', async () => {
    const { api, informer, clock } = setup();
    informer.start();
    await clock.advance(0);
    const rv = api.bookmark();
    await clock.advance(0);
    expect(informer.lastSyncResourceVersion()).toBe(rv);
    api.breakWatches();
    await clock.advance(800);
    expect(api.watchCalls.at(-1)).toBe(rv);
    await informer.stop();
  });

  it('restarts a watch that stays silent past the idle timeout', async () => {
    const { api, informer, clock } = setup({ watchIdleTimeoutMs: 10_000 });
    informer.start();
    await clock.advance(0);
    await expectRestartAfterSilence({ api, informer, clock });
  });

  it('counts the idle timeout from the last event: events keep a watch open, silence after them ends it', async () => {
    const { api, informer, clock } = setup({ watchIdleTimeoutMs: 10_000 });
    informer.start();
    await clock.advance(0);
    for (let i = 0; i < 5; i++) {
      await clock.advance(6_000);
      api.upsert(`n${i}`);
      await clock.advance(0);
    }
    // 30 s in, never 10 s without an event: the first watch still runs.
    expect(api.watchCalls).toHaveLength(1);
    expect(informer.stats.lastError).toBeUndefined();
    await expectRestartAfterSilence({ api, informer, clock });
  });

  it('contains throwing and rejecting handlers: logs them and keeps delivering to everyone', async () => {
    const { api, informer, notes, clock, logs } = setup();
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('sync boom');
      },
    });
    informer.addEventHandler({ onAdd: () => Promise.reject(new Error('async boom')) });
    informer.start();
    await clock.advance(0);
    api.upsert('a');
    api.upsert('b');
    await clock.advance(0);
    expect(notes.map((n) => n.name)).toEqual(['a', 'b']);
    expect(informer.cache.size).toBe(2);
    const errors = logs.filter((l) => l.level === 'error').map((l) => String((l.fields?.error as Error).message));
    expect(errors.filter((m) => m === 'sync boom')).toHaveLength(2);
    expect(errors.filter((m) => m === 'async boom')).toHaveLength(2);
    await informer.stop();
  });

  it('resyncs periodically: onUpdate(obj, obj) for every cached object', async () => {
    const { api, informer, notes, clock } = setup({ resyncPeriodMs: 30_000 });
    api.upsert('a');
    api.upsert('b');
    informer.start();
    await clock.advance(0);
    await clock.advance(30_000);
    const resyncs = notes.filter((n) => n.type === 'update');
    expect(resyncs).toEqual([
      { type: 'update', name: 'a', oldRV: '101', newRV: '101' },
      { type: 'update', name: 'b', oldRV: '102', newRV: '102' },
    ]);
    await clock.advance(30_000);
    expect(notes.filter((n) => n.type === 'update')).toHaveLength(4);
    await informer.stop();
    await clock.advance(60_000);
    expect(notes.filter((n) => n.type === 'update')).toHaveLength(4);
  });

  it('replays the cache as adds to a handler registered after sync; removal stops delivery', async () => {
    const { api, informer, clock } = setup();
    api.upsert('a');
    informer.start();
    await clock.advance(0);
    const late: string[] = [];
    const remove = informer.addEventHandler({ onAdd: (o) => void late.push(o.metadata.name) });
    expect(late).toEqual(['a']);
    remove();
    api.upsert('b');
    await clock.advance(0);
    expect(late).toEqual(['a']);
    await informer.stop();
  });

  it('stop ends the watch, and waitForSync reports false when stopped before syncing', async () => {
    const { api, informer, clock } = setup();
    api.failLists = 100;
    informer.start();
    const synced = informer.waitForSync();
    await clock.advance(0);
    await informer.stop();
    expect(await synced).toBe(false);
    const calls = api.listCalls;
    await clock.advance(120_000);
    expect(api.listCalls).toBe(calls);

    const second = setup();
    second.informer.start();
    await second.clock.advance(0);
    expect(second.api.activeWatches).toBe(1);
    await second.informer.stop();
    await flushMicrotasks();
    expect(second.api.activeWatches).toBe(0);
  });
});
