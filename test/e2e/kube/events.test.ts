// Events written by the recorder land on the real apiserver, and a repeat becomes count 2 on the same Event.
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { EventRecorder, kubeEventSink } from '../../../host/src/kube/events/recorder.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

describe('event recorder (real apiserver)', () => {
  const info = inject('controlPlane');
  const kc = adminKubeConfig(info);
  const core = kc.makeApiClient(CoreV1Api);
  const client = new KubeClient(kc);
  const nodeName = uniqueName('ev-node');
  const namespace = uniqueName('ev-ns');

  afterAll(async () => {
    await core.deleteNode({ name: nodeName }).catch(() => undefined);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  // Only our component's events: the apiserver's own controllers (e.g. the ClusterIP repair loop right after
  // start-up) may record events about the same objects.
  async function eventsAbout(ns: string, name: string, component: string): Promise<CoreV1Event[]> {
    const list = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${name},source=${component}`,
    });
    return list.items;
  }

  it('creates a Node event in "default", then deduplicates a repeat into count 2', async () => {
    const node = await client.request<{
      kind: string;
      apiVersion: string;
      metadata: { name: string; uid: string; resourceVersion: string };
    }>({
      method: 'POST',
      path: '/api/v1/nodes',
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } },
    });
    const recorder = new EventRecorder({
      sink: kubeEventSink(client),
      component: 'cloud-node-controller',
      host: 'ccm-e2e',
    });
    recorder.recordEvent(node, 'Normal', 'Synced', 'Node synced successfully');
    await recorder.flush();
    let events = await eventsAbout('default', nodeName, 'cloud-node-controller');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      reason: 'Synced',
      message: 'Node synced successfully',
      type: 'Normal',
      count: 1,
      source: { component: 'cloud-node-controller', host: 'ccm-e2e' },
      reportingComponent: 'cloud-node-controller',
      involvedObject: {
        kind: 'Node',
        apiVersion: 'v1',
        name: nodeName,
        uid: node.metadata.uid,
        resourceVersion: node.metadata.resourceVersion,
      },
    });

    await new Promise((r) => setTimeout(r, 1_100)); // so lastTimestamp (whole seconds) moves
    recorder.recordEvent(node, 'Normal', 'Synced', 'Node synced successfully');
    await recorder.flush();
    events = await eventsAbout('default', nodeName, 'cloud-node-controller');
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.count).toBe(2);
    expect(event?.lastTimestamp?.getTime()).toBeGreaterThan(event?.firstTimestamp?.getTime() ?? Infinity);
    expect(recorder.stats).toMatchObject({ created: 1, patched: 1, failed: 0, dropped: 0 });

    recorder.recordEvent(node, 'Warning', 'SyncFailed', 'another');
    await recorder.flush();
    expect(await eventsAbout('default', nodeName, 'cloud-node-controller')).toHaveLength(2);
  });

  it('puts events about a namespaced object in its namespace', async () => {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const svc = await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'web' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } },
    });
    const recorder = new EventRecorder({ sink: kubeEventSink(client), component: 'service-controller' });
    recorder.recordEvent(
      { kind: 'Service', apiVersion: 'v1', metadata: { name: 'web', namespace, uid: svc.metadata?.uid ?? '' } },
      'Normal',
      'EnsuringLoadBalancer',
      'Ensuring load balancer',
    );
    await recorder.flush();
    const events = await eventsAbout(namespace, 'web', 'service-controller');
    expect(events).toHaveLength(1);
    expect(events[0]?.involvedObject).toMatchObject({ kind: 'Service', namespace, name: 'web' });
  });
});
