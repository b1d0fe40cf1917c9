// --use-service-account-credentials end to end: the CCM's own identity may only read Nodes and Services and mint
// tokens for the controllers' ServiceAccounts (manifests/controller-accounts/); a Node still gets
// initialized, so the cloud-node controller wrote it as kube-system/node-controller, which the CCM created.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type V1Node, type V1PolicyRule } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CCMProcess } from '../../../lab/ccm/index.ts';
import { eventually } from '../../../lab/process/index.ts';
import {
  mintIdentity,
  adminKubeConfig,
  uniqueName,
  applyManifests,
  loadManifests,
  MANIFESTS_DIR,
} from '../../../lab/controlplane/index.ts';
import { EXAMPLE_PLUGIN } from '../../../lab/plugins/index.ts';

/** The rules manifests/controller-accounts' patch gives the CCM's own ClusterRole. */
function ccmRules(): V1PolicyRule[] {
  const component = load(readFileSync(join(MANIFESTS_DIR, 'controller-accounts', 'kustomization.yaml'), 'utf8')) as {
    patches: { patch: string }[];
  };
  const ops = load(component.patches[0]!.patch) as { path: string; value: V1PolicyRule[] }[];
  return ops.find((o) => o.path === '/rules')!.value;
}

const TAINT = { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' };

describe('--use-service-account-credentials', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const identity = uniqueName('ccm-sa-creds');
  const nodeName = uniqueName('sa-init');
  const refusedNode = uniqueName('sa-refused');
  const running: CCMProcess[] = [];
  let token = '';
  let cloudConfig = '';

  function start(args: string[]): CCMProcess {
    const ccm = new CCMProcess({
      info,
      token,
      args: [
        '--cloud-provider=example',
        `--plugin=${EXAMPLE_PLUGIN}`,
        `--cloud-config=${cloudConfig}`,
        '--controllers=cloud-node',
        '--leader-elect=false',
        ...args,
      ],
    });
    running.push(ccm);
    return ccm;
  }

  const tainted = (name: string): V1Node => ({
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: { taints: [TAINT] },
    status: { addresses: [{ type: 'Hostname', address: name }] },
  });

  beforeAll(async () => {
    // The controllers' roles and the minting Role from the manifest; the Role bound to this test's identity too.
    await applyManifests(admin, loadManifests('controller-accounts/rbac.yaml'));
    // Exactly what the component leaves the CCM's own ClusterRole.
    const minted = await mintIdentity(info, admin, { name: identity, namespace: 'kube-system', rules: ccmRules() });
    token = minted.token;
    await rbac.createNamespacedRoleBinding({
      namespace: 'kube-system',
      body: {
        metadata: { name: identity },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'Role',
          name: 'cloud-controller-manager:controller-accounts',
        },
        subjects: [{ kind: 'ServiceAccount', name: identity, namespace: 'kube-system' }],
      },
    });
    cloudConfig = join(info.dir, `${nodeName}.json`);
    writeFileSync(
      cloudConfig,
      JSON.stringify({
        instances: [
          { id: 'i-sa', nodeName, addresses: [{ type: 'InternalIP', address: '10.0.0.21' }] },
          { id: 'i-refused', nodeName: refusedNode, addresses: [{ type: 'InternalIP', address: '10.0.0.22' }] },
        ],
      }),
    );
  });

  afterAll(async () => {
    for (const ccm of running) await ccm.stop();
    await Promise.allSettled([nodeName, refusedNode].map((name) => core.deleteNode({ name })));
  });

  it('is needed: with its own identity, the CCM may not initialize a node', async () => {
    const ccm = start([]);
    await ccm.ready();
    await core.createNode({ body: tainted(refusedNode) });
    const failure = await ccm.waitForLog(
      'the refused node update',
      (r) => r.key === refusedNode && /forbidden/i.test(String(r.err)),
    );
    expect(String(failure.err)).toContain(`system:serviceaccount:kube-system:${identity}`);
    await ccm.stop();
  });

  it('initializes a node as kube-system/node-controller, creating the ServiceAccount it needs', async () => {
    const ccm = start(['--use-service-account-credentials']);
    await ccm.ready();
    await core.createNode({ body: tainted(nodeName) });
    const node = await eventually<V1Node>('node initialized', async () => {
      const n = await core.readNode({ name: nodeName });
      return n.spec?.taints?.some((t) => t.key === TAINT.key) ? undefined : n;
    });
    expect(node.spec?.providerID).toBe('example://i-sa');
    const account = await core.readNamespacedServiceAccount({ name: 'node-controller', namespace: 'kube-system' });
    expect(account.metadata?.name).toBe('node-controller');
  });
});
