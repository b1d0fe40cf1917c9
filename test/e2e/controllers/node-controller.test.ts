// The cloud-node controller against the real apiserver with a recording FakeProvider: what lands on the Node.
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CloudNodeController } from '../../../host/src/controllers/node/node-controller.ts';
import { silentLogger } from '../../../host/src/log/logger.ts';
import type { NodeAddress } from '../../../host/src/plugin/abi/index.ts';
import { eventually, type Harness, startHarness } from '../../support/controller-harness.ts';
import { FakeProvider } from '../../support/fake-provider.ts';
import { adminKubeConfig, uniqueName } from '../../support/kube.ts';

describe('cloud-node controller', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  const prefix = uniqueName('cn');
  const cloud = new FakeProvider();
  const created: string[] = [];
  let harness: Harness;
  let controller: CloudNodeController;
  const stop = new AbortController();

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
    harness.informers.start();
    await harness.informers.waitForSync(stop.signal);
    void controller.run(stop.signal);
  });

  afterAll(async () => {
    stop.abort();
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
});
