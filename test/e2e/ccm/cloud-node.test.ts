// The cloud-node controller end to end: wasm-ccm as a real process, with the RBAC of manifests/, loading a real
// SDK-built plugin, initializes a tainted Node exactly as upstream would.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CCMProcess } from '../../../lab/ccm/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  adminKubeConfig,
  uniqueName,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../../lab/controlplane/index.ts';
import { EXAMPLE_PLUGIN } from '../../../lab/plugins/index.ts';

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

describe('cloud-node controller (wasm-ccm process, example plugin)', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const nodeName = uniqueName('init');
  const badIPNode = uniqueName('badip');
  let ccm: CCMProcess;

  beforeAll(async () => {
    await applyManifests(admin, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(info, admin);
    const cloudConfig = join(info.dir, `${nodeName}.json`);
    writeFileSync(
      cloudConfig,
      JSON.stringify({
        instances: [
          {
            id: 'i-init',
            nodeName,
            instanceType: 'm1.small',
            zone: 'eu-1a',
            region: 'eu-1',
            addresses: [
              { type: 'InternalIP', address: '10.0.0.7' },
              { type: 'ExternalIP', address: '203.0.113.7' },
            ],
            labels: { 'example.com/rack': 'r7', 'kubernetes.io/evil': 'x' },
          },
          { id: 'i-badip', nodeName: badIPNode, addresses: [{ type: 'InternalIP', address: '10.0.0.8' }] },
        ],
      }),
    );
    ccm = new CCMProcess({
      info,
      token,
      args: [
        '--cloud-provider=example',
        `--plugin=${EXAMPLE_PLUGIN}`,
        `--cloud-config=${cloudConfig}`,
        '--controllers=cloud-node',
      ],
    });
    await ccm.ready();
  });

  afterAll(async () => {
    await ccm?.stop();
    await Promise.allSettled([nodeName, badIPNode].map((name) => core.deleteNode({ name })));
  });

  it('initializes a tainted node: providerID, labels, addresses, taint removed, Synced event', async () => {
    // As a kubelet registers: tainted, with its Hostname address in the status of the create call.
    await core.createNode({
      body: {
        metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } },
        spec: { taints: [TAINT] },
        status: { addresses: [{ type: 'Hostname', address: nodeName }] },
      },
    });

    const node = await eventually<V1Node>('node initialized', async () => {
      const n = await core.readNode({ name: nodeName });
      return n.spec?.taints?.some((t) => t.key === TAINT.key) ? undefined : n;
    });
    expect(node.spec?.providerID).toBe('example://i-init');
    expect(node.metadata?.labels).toMatchObject({
      'kubernetes.io/hostname': nodeName,
      'node.kubernetes.io/instance-type': 'm1.small',
      'beta.kubernetes.io/instance-type': 'm1.small',
      'topology.kubernetes.io/zone': 'eu-1a',
      'failure-domain.beta.kubernetes.io/zone': 'eu-1a',
      'topology.kubernetes.io/region': 'eu-1',
      'failure-domain.beta.kubernetes.io/region': 'eu-1',
      'example.com/rack': 'r7',
    });
    expect(node.metadata?.labels?.['kubernetes.io/evil']).toBeUndefined();

    const addresses = await eventually('addresses', async () => {
      const n = await core.readNode({ name: nodeName });
      return (n.status?.addresses?.length ?? 0) >= 3 ? n.status?.addresses : undefined;
    });
    expect(addresses).toEqual(
      expect.arrayContaining([
        { type: 'InternalIP', address: '10.0.0.7' },
        { type: 'ExternalIP', address: '203.0.113.7' },
        { type: 'Hostname', address: nodeName },
      ]),
    );
    expect(addresses).toHaveLength(3);

    const events = await eventually('Synced event', async () => {
      const list = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: `involvedObject.name=${nodeName},reason=Synced`,
      });
      return list.items.length > 0 ? list.items : undefined;
    });
    expect(events[0]).toMatchObject({
      type: 'Normal',
      reason: 'Synced',
      message: 'Node synced successfully',
      source: { component: 'cloud-node-controller' },
      involvedObject: { kind: 'Node', name: nodeName },
    });
  });

  it('keeps a node tainted when its provided-node-ip is unknown to the cloud, and says why', async () => {
    await core.createNode({
      body: {
        metadata: { name: badIPNode, annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.9.9.9' } },
        spec: { taints: [TAINT] },
      },
    });
    const record = await ccm.waitForLog(
      'the provided-node-ip error',
      (r) => r.key === badIPNode && String(r.err).includes('matches ip: 10.9.9.9'),
    );
    expect(record.level).toBe('error');
    const node = await core.readNode({ name: badIPNode });
    expect(node.spec?.taints).toContainEqual(TAINT);
    expect(node.spec?.providerID).toBeUndefined();
  });
});
