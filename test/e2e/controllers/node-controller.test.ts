// The cloud-node controller against the real apiserver with a recording FakeProvider: what lands on the Node.
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CloudNodeController } from '../../../host/src/controllers/node/node-controller.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';
import type { NodeAddress } from '../../../host/src/abi/index.ts';
import { eventually, type Harness, startHarness } from '../../support/controller-harness.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };
const PROVIDED_IP = 'alpha.kubernetes.io/provided-node-ip';

describe('cloud-node controller', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const prefix = uniqueName('cn');
  const cloud = new FakeProvider();
  const created: string[] = [];
  let harness: Harness;
  let controller: CloudNodeController;

  function cloudAddresses(name: string, nodeAddresses: NodeAddress[]): void {
    cloud.metadata.set(name, {
      providerID: `fake://${name}`,
      instanceType: 'fake.small',
      nodeAddresses,
      zone: 'fake-zone',
      region: 'fake-region',
      additionalLabels: {},
    });
  }

  async function createNode(suffix: string, body: Partial<V1Node>): Promise<string> {
    const name = `${prefix}-${suffix}`;
    created.push(name);
    await core.createNode({ body: { ...body, metadata: { ...body.metadata, name } } });
    return name;
  }

  const tainted = async (name: string) =>
    (await core.readNode({ name })).spec?.taints?.some((t) => t.key === TAINT.key) === true;

  beforeAll(async () => {
    harness = await startHarness(info, 'cloud-node-controller');
    controller = new CloudNodeController({
      client: harness.client,
      nodes: harness.informers.nodes,
      provider: cloud,
      recorder: harness.recorder,
      logger: silentLogger,
      registry: harness.registry,
      workers: 2,
      statusUpdateFrequencyMs: 3_600_000,
    });
    await harness.run(controller);
  });

  afterAll(async () => {
    await harness?.stop();
    await Promise.allSettled(created.map((name) => core.deleteNode({ name })));
  });

  it("writes the cloud's order when addresses of one type are reordered (upstream)", async () => {
    const name = await createNode('order', {
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.6' },
          { type: 'InternalIP', address: '10.0.0.5' },
          { type: 'Hostname', address: 'h' },
        ],
      },
    });
    cloudAddresses(name, [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'Hostname', address: 'h' },
    ]);
    await eventually('informer has it', () => harness.informers.nodes.cache.get(name)?.status?.addresses?.length);
    await controller.updateNodeStatus();
    const node = await core.readNodeStatus({ name });
    expect(node.status?.addresses?.map((a) => a.address)).toEqual(['10.0.0.5', '10.0.0.6', 'h']);
  });

  it('initializes the nodes waiting in its queue with one batched call; a failed node is retried alone', async () => {
    cloud.batched = true;
    cloud.delayMs = 300; // both workers busy with a node each while the others queue up behind them
    const suffixes = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
    // Each node's first answer in a batch is an error: its sync fails alone and is retried with backoff.
    for (const s of suffixes)
      cloud.nodeErrors.set(`${prefix}-${s}`, { code: 'Internal', message: 'flaky', retryAfterSeconds: 0 });
    try {
      const names = await Promise.all(suffixes.map((s) => createNode(s, { spec: { taints: [TAINT] } })));
      for (const name of names) await eventually(`${name} initialized`, async () => !(await tainted(name)));
      expect(cloud.nodeErrors.size).toBeLessThan(names.length - 1);
      const ours = (args: unknown[]) => (args[0] as string[]).filter((n) => names.includes(n));
      const batches = cloud.calls.filter((c) => c.method === 'instance-metadata-batch').map((c) => ours(c.args));
      const single = cloud.calls.filter(
        (c) => c.method === 'instance-metadata' && names.includes((c.args[0] as { name: string }).name),
      );
      // Fewer cloud calls than nodes, and one with several nodes in it.
      expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(1);
      // Every node is asked about once, plus once more for each that failed: fewer calls than that many nodes.
      const failed = names.length - cloud.nodeErrors.size;
      expect(batches.length + single.length).toBeLessThan(names.length + failed);
      const synced = await core.listEventForAllNamespaces({ fieldSelector: 'reason=Synced' });
      for (const name of names) {
        expect(
          synced.items.some((e) => e.involvedObject.name === name),
          `Synced event of ${name}`,
        ).toBe(true);
      }
    } finally {
      cloud.batched = false;
      cloud.delayMs = 0;
      cloud.nodeErrors.clear();
    }
  });

  describe('provided-node-ip, read as upstream reads it', () => {
    const cloudIPs: NodeAddress[] = [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '203.0.113.5' },
    ];

    async function initialize(suffix: string, annotation: string): Promise<string> {
      const name = `${prefix}-${suffix}`;
      cloudAddresses(name, cloudIPs);
      await createNode(suffix, {
        metadata: { annotations: { [PROVIDED_IP]: annotation } },
        spec: { taints: [TAINT] },
      });
      return name;
    }

    it.each([
      ['lead', '010.000.000.006'],
      ['mapped', '::ffff:10.0.0.6'],
    ])('initializes a node whose annotation Go reads as 10.0.0.6 (%s: %j)', async (suffix, annotation) => {
      const name = await initialize(suffix, annotation);
      await eventually('initialized', async () => !(await tainted(name)));
      const node = await eventually('addresses', async () => {
        const n = await core.readNodeStatus({ name });
        return n.status?.addresses?.length ? n : undefined;
      });
      expect(node.status?.addresses).toEqual([
        { type: 'InternalIP', address: '10.0.0.6' },
        { type: 'ExternalIP', address: '203.0.113.5' },
      ]);
    });

    it.each([
      ['space', ' 10.0.0.5'],
      ['twov4', '10.0.0.5,10.0.0.6'],
    ])('keeps a node tainted when Go refuses its annotation (%s: %j)', async (suffix, annotation) => {
      const name = await initialize(suffix, annotation);
      // The positive sign: the sync ran, failed and was requeued with backoff.
      await eventually('sync failed and requeued', () => controller.queue.numRequeues(name) >= 1);
      expect(await tainted(name)).toBe(true);
      expect((await core.readNode({ name })).spec?.providerID ?? '').toBe('');
    });
  });
});
