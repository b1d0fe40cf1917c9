// What initializing one node costs the cloud-node controller in apiserver requests (real apiserver, in-process
// controller, fake provider). Upstream starts the update from its lister, so a node costs an update and a status
// patch; a GET first would be a third more requests at the default 20 QPS. A stale cache must still converge.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sharedInformers, type SharedInformers } from '../../../host/src/app/informers.ts';
import { CloudNodeController } from '../../../host/src/controllers/node/node-controller.ts';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { EventRecorder, kubeEventSink } from '../../../host/src/kube/events/recorder.ts';
import { createJsonLineLogger, silentLogger } from '../../../host/src/log/logger.ts';
import { mintIdentity, adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { eventually } from '../../../lab/process/index.ts';
import { deleteNodes, hasTaint, kubeletNode, UNINITIALIZED_TAINT } from '../../../lab/ccm/index.ts';

describe('cloud-node controller: apiserver requests per initialization', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const adminClient = new KubeClient(admin, { qps: 500, burst: 1000 });
  const names: string[] = [];
  const provider = new FakeProvider({ capabilities: ['instancesV2'] });
  let informers: SharedInformers;
  let recorder: EventRecorder;

  beforeAll(async () => {
    informers = sharedInformers(adminClient, silentLogger);
    recorder = new EventRecorder({
      sink: kubeEventSink(adminClient),
      component: 'cloud-node-controller',
      logger: silentLogger,
    });
    informers.start();
    await informers.waitForSync(AbortSignal.timeout(20_000));
  });

  afterAll(async () => {
    await informers?.stop();
    await recorder?.flush();
    await deleteNodes(admin, names);
  });

  /** A controller whose own client counts its requests; nothing runs it: the test calls syncNode. */
  function controller(
    nodes = informers.nodes,
    as = admin,
    logger = silentLogger,
  ): {
    ctl: CloudNodeController;
    requests: () => Promise<Record<string, number>>;
  } {
    const registry = new Registry();
    const client = new KubeClient(as, { qps: 500, burst: 1000, registry });
    const ctl = new CloudNodeController({
      client,
      nodes,
      provider,
      recorder,
      logger,
      registry,
      workers: 1,
      statusUpdateFrequencyMs: 300_000,
    });
    const requests = async (): Promise<Record<string, number>> => {
      const metric = registry.getSingleMetric('rest_client_requests_total');
      const out: Record<string, number> = {};
      for (const v of (await metric?.get())?.values ?? []) {
        const method = String(v.labels.method);
        out[method] = (out[method] ?? 0) + v.value;
      }
      return out;
    };
    return { ctl, requests };
  }

  async function registered(name: string): Promise<void> {
    names.push(name);
    provider.metadata.set(name, {
      providerID: `fake://${name}`,
      instanceType: 'f1',
      nodeAddresses: [{ type: 'InternalIP', address: '192.0.2.44' }],
      zone: 'z1',
      region: 'r1',
      additionalLabels: {},
    });
    await adminClient.request({
      method: 'POST' as never,
      path: '/api/v1/nodes',
      body: kubeletNode(name, { ready: true }),
    });
    await eventually('the informer to see the node', () => informers.nodes.cache.get(name) !== undefined);
  }

  it('initializes a node with one update and one status patch, no GET', async () => {
    const name = uniqueName('req-init');
    await registered(name);
    const { ctl, requests } = controller();
    const before = informers.nodes.cache.get(name)?.metadata?.resourceVersion;
    await ctl.syncNode(name);
    // The status patch is not awaited by the sync (the worker moves on); settled() waits for it.
    await ctl.settled();
    expect(await requests()).toEqual({ PUT: 1, PATCH: 1 });
    // The Synced event is about the node as the sync found it, as upstream's (its pre-update copy).
    await recorder.flush();
    const events = await adminClient.request<{ items: { involvedObject: { resourceVersion?: string } }[] }>({
      path: '/api/v1/namespaces/default/events',
      query: { fieldSelector: `involvedObject.name=${name},reason=Synced` },
    });
    expect(events.items.map((e) => e.involvedObject.resourceVersion)).toEqual([before]);
    // The update started from the trimmed cache (conditions cut to type and status); the apiserver keeps the
    // stored status on a node update, so nothing of the kubelet's status is lost.
    const node = await adminClient.request<ReturnType<typeof kubeletNode>>({ path: `/api/v1/nodes/${name}` });
    expect(hasTaint(node, UNINITIALIZED_TAINT.key)).toBe(false);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
    });
  });

  it('converges from a stale cache: the conflict costs one GET and a second update, nothing is lost', async () => {
    const name = uniqueName('req-stale');
    await registered(name);
    // A second informer that stops watching keeps an old copy of the node.
    const stale = sharedInformers(adminClient, silentLogger);
    stale.start();
    await stale.waitForSync(AbortSignal.timeout(20_000));
    await stale.stop();
    expect(stale.nodes.cache.get(name)).toBeDefined();
    await adminClient.patch(`/api/v1/nodes/${name}`, { metadata: { labels: { 'example.com/late': 'yes' } } }, 'merge');

    const { ctl, requests } = controller(stale.nodes);
    await ctl.syncNode(name);
    await ctl.settled();
    expect(await requests()).toEqual({ PUT: 2, GET: 1, PATCH: 1 });
    const node = await adminClient.request<ReturnType<typeof kubeletNode>>({ path: `/api/v1/nodes/${name}` });
    expect(hasTaint(node, UNINITIALIZED_TAINT.key)).toBe(false);
    expect(node.spec?.providerID).toBe(`fake://${name}`);
    expect(node.metadata?.labels).toMatchObject({ 'example.com/late': 'yes', 'topology.kubernetes.io/zone': 'z1' });
  });

  it('initializes the node even when the address patch that follows fails, and logs why', async () => {
    const name = uniqueName('req-noaddr');
    await registered(name);
    // May update nodes but not patch their status: the address patch gets a 403.
    const identity = await mintIdentity(info, admin, {
      name: uniqueName('no-status'),
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'update', 'patch'] }],
    });
    const lines: string[] = [];
    const { ctl } = controller(
      informers.nodes,
      identity.kubeConfig,
      createJsonLineLogger({ write: (l) => lines.push(l) }),
    );
    await ctl.syncNode(name);
    await ctl.settled();
    const node = await adminClient.request<ReturnType<typeof kubeletNode>>({ path: `/api/v1/nodes/${name}` });
    expect(hasTaint(node, UNINITIALIZED_TAINT.key)).toBe(false);
    expect(node.status?.addresses?.some((a) => a.address === '192.0.2.44')).toBe(false);
    const failures = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.node === name);
    expect(failures).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'failed to update node addresses',
        error: expect.stringMatching(/forbidden/),
      }),
    );
  });
});
