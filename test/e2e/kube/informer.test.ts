// The informer against the real kube-apiserver, through a TCP proxy that lets the test break connections.
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import type { KubeObject, Wire } from '../../../host/src/kube/client/wire.ts';
import { deletedObject, Informer, isTombstone } from '../../../host/src/kube/informer/informer.ts';
import { listWatcher } from '../../../host/src/kube/informer/list-watch.ts';
import { adminKubeConfig, kubeConfigFor, uniqueName } from '../../../lab/controlplane/index.ts';
import { compactEtcd } from './support/etcd.ts';
import { TcpProxy } from './support/tcp-proxy.ts';
import { eventually } from './support/wait.ts';

type Node = Wire<V1Node>;
type Note = { type: 'add' | 'update' | 'delete'; name: string; tombstone?: boolean; initial?: boolean };

describe('informer (real apiserver)', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const run = uniqueName('inf');
  const selector = `e2e-informer=${run}`;
  let proxy: TcpProxy;
  let client: KubeClient;
  const informers: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    const target = new URL(info.server);
    proxy = await TcpProxy.start(target.hostname, Number(target.port));
    client = new KubeClient(
      kubeConfigFor({ server: `https://127.0.0.1:${proxy.port}`, caPem: info.caPem }, 'admin', info.adminToken),
      {
        qps: 100,
        burst: 100,
      },
    );
  });

  afterAll(async () => {
    await Promise.all(informers.map((i) => i.stop()));
    const nodes = await core.listNode({ labelSelector: selector });
    await Promise.allSettled(nodes.items.map((n) => core.deleteNode({ name: n.metadata?.name ?? '' })));
    await proxy.close();
  });

  function start<I extends { start(): void; stop(): Promise<void> }>(informer: I): I {
    informers.push(informer);
    informer.start();
    return informer;
  }

  function record<T extends KubeObject>(informer: Informer<T>): Note[] {
    const notes: Note[] = [];
    informer.addEventHandler({
      onAdd: (o, initial) => void notes.push({ type: 'add', name: o.metadata?.name ?? '', initial }),
      onUpdate: (_o, n) => void notes.push({ type: 'update', name: n.metadata?.name ?? '' }),
      onDelete: (d) =>
        void notes.push({ type: 'delete', name: deletedObject(d).metadata?.name ?? '', tombstone: isTombstone(d) }),
    });
    return notes;
  }

  const label = (name: string) => ({ metadata: { name, labels: { 'e2e-informer': run } } });

  it('lists and watches Nodes: add, update, delete; one JSON representation, no managedFields', async () => {
    await core.createNode({ body: label(`${run}-pre`) });
    const informer = start(
      new Informer<Node>({
        name: 'nodes',
        listWatcher: listWatcher(client, '/api/v1/nodes', { labelSelector: selector }),
      }),
    );
    const notes = record(informer);
    expect(await informer.waitForSync()).toBe(true);
    expect(notes).toEqual([{ type: 'add', name: `${run}-pre`, initial: true }]);

    await core.createNode({ body: label(`${run}-a`) });
    await eventually('the add', () => informer.cache.get(`${run}-a`) !== undefined);
    await core.patchNode({
      name: `${run}-a`,
      body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
    });
    await eventually('the update', () => informer.cache.get(`${run}-a`)?.metadata?.annotations?.touched === 'yes');
    await core.deleteNode({ name: `${run}-pre` });
    await eventually('the delete', () => informer.cache.get(`${run}-pre`) === undefined);
    expect(notes.slice(1)).toEqual([
      { type: 'add', name: `${run}-a`, initial: false },
      { type: 'update', name: `${run}-a` },
      { type: 'delete', name: `${run}-pre`, tombstone: false },
    ]);

    // The listed object and the watched one look alike: kind/apiVersion present, timestamps strings.
    const listed = await new Promise<Node>((resolve) => {
      const remove = informer.addEventHandler({ onAdd: (o) => resolve(o) }); // replay of the cache
      remove();
    });
    for (const obj of [listed, informer.cache.get(`${run}-a`)]) {
      expect(obj?.kind).toBe('Node');
      expect(obj?.apiVersion).toBe('v1');
      expect(typeof obj?.metadata?.creationTimestamp).toBe('string');
      expect(obj?.metadata?.managedFields).toBeUndefined();
    }
    expect(informer.stats.lists).toBe(1);
  });

  it('survives reset connections and a refusing apiserver: backs off, resumes from its resourceVersion, no relist', async () => {
    const informer = start(
      new Informer<Node>({
        name: 'nodes-reset',
        listWatcher: listWatcher(client, '/api/v1/nodes', { labelSelector: selector }),
        backoff: { initialMs: 100, maxMs: 1_000 },
      }),
    );
    const notes = record(informer);
    expect(await informer.waitForSync()).toBe(true);
    const before = notes.length;

    proxy.refuse(true); // every open watch is reset, reconnects fail
    await eventually('a failed reconnect', () => informer.stats.failures >= 2);
    await core.createNode({ body: label(`${run}-while-down`) });
    await core.patchNode({ name: `${run}-a`, body: [{ op: 'add', path: '/metadata/annotations/down', value: 'yes' }] });
    proxy.refuse(false);

    await eventually('changes made during the outage', () => informer.cache.get(`${run}-while-down`) !== undefined);
    await eventually(
      'the update made during the outage',
      () => informer.cache.get(`${run}-a`)?.metadata?.annotations?.down === 'yes',
    );
    expect(notes.slice(before)).toEqual([
      { type: 'add', name: `${run}-while-down`, initial: false },
      { type: 'update', name: `${run}-a` },
    ]);
    expect(informer.stats.lists).toBe(1);
    expect(informer.stats.watches).toBeGreaterThanOrEqual(2);

    // A reset in the middle of an established watch, too.
    const watches = informer.stats.watches;
    proxy.resetAll();
    await eventually('a new watch', () => informer.stats.watches > watches);
    await core.deleteNode({ name: `${run}-while-down` });
    await eventually('the delete after the reset', () => informer.cache.get(`${run}-while-down`) === undefined);
    expect(informer.stats.lists).toBe(1);
  });

  it('relists on a real 410 after etcd compaction and delivers tombstones for what vanished meanwhile', async () => {
    const namespace = uniqueName('inf-ns');
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const event = (name: string) => ({
      metadata: { name, namespace },
      involvedObject: { kind: 'Pod', name: 'x', namespace, apiVersion: 'v1' },
      reason: 'Test',
      message: name,
      type: 'Normal',
    });
    await core.createNamespacedEvent({ namespace, body: event('first') });
    const informer = start(
      new Informer<KubeObject>({
        name: 'events',
        listWatcher: listWatcher(client, `/api/v1/namespaces/${namespace}/events`),
        backoff: { initialMs: 100, maxMs: 1_000 },
      }),
    );
    const notes = record(informer);
    expect(await informer.waitForSync()).toBe(true);
    expect(notes).toEqual([{ type: 'add', name: 'first', initial: true }]);
    const rvBefore = informer.lastSyncResourceVersion();

    proxy.refuse(true);
    await core.createNamespacedEvent({ namespace, body: event('second') });
    await core.deleteNamespacedEvent({ namespace, name: 'first' });
    const compacted = await compactEtcd(info);
    expect(compacted).toBeGreaterThan(Number(rvBefore));
    proxy.refuse(false);

    await eventually('the relist', () => informer.stats.lists === 2);
    expect(informer.stats.lastError).toMatch(/too old/); // the apiserver's 410 Expired, not some other failure
    await eventually('the new object', () => informer.cache.get(`${namespace}/second`) !== undefined);
    expect(informer.cache.get(`${namespace}/first`)).toBeUndefined();
    expect(notes.slice(1)).toEqual(
      expect.arrayContaining([
        { type: 'delete', name: 'first', tombstone: true },
        { type: 'add', name: 'second', initial: false },
      ]),
    );
    expect(Number(informer.lastSyncResourceVersion())).toBeGreaterThanOrEqual(compacted);
    await core.deleteNamespace({ name: namespace });
  });
});
