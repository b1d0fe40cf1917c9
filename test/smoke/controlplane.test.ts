// Smoke tests: the control plane the end-to-end tests run against is a real kube-apiserver.
import { CoreV1Api, type KubeConfig, type V1Node, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { httpsGet, mintIdentity, adminKubeConfig, uniqueName } from '../../lab/controlplane/index.ts';

const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';

describe('control plane', () => {
  const info = inject('controlPlane');
  let kc: KubeConfig;
  let core: CoreV1Api;
  const created: string[] = [];

  beforeAll(() => {
    kc = adminKubeConfig(info);
    core = kc.makeApiClient(CoreV1Api);
  });

  afterAll(async () => {
    await Promise.allSettled(created.map((name) => core.deleteNode({ name })));
  });

  it('reports version v1.36.x on /version', async () => {
    const res = await httpsGet(`${info.server}/version`, info.caPem, info.adminToken);
    expect(res.status).toBe(200);
    const version = JSON.parse(res.body) as { gitVersion: string; major: string; minor: string };
    expect(version.gitVersion).toMatch(/^v1\.36\.\d+$/);
    expect(version.major).toBe('1');
    expect(version.minor).toBe('36');
  });

  it('refuses a request without credentials or with a wrong token', async () => {
    const res = await httpsGet(`${info.server}/api/v1/nodes`, info.caPem, 'not-a-token');
    expect(res.status).toBe(401);
  });

  it('stores a Node carrying the uninitialized taint and reads it back', async () => {
    const name = uniqueName('smoke-node');
    created.push(name);
    await core.createNode({
      body: {
        metadata: { name, labels: { 'kubernetes.io/hostname': name } },
        spec: { taints: [{ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' }] },
      },
    });
    const node = await core.readNode({ name });
    expect(node.metadata?.name).toBe(name);
    expect(node.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    // The apiserver's TaintNodesByCondition admission adds node.kubernetes.io/not-ready beside ours.
    expect(node.spec?.taints).toContainEqual({ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' });
  });

  it('delivers an update to a watch started through client-node', async () => {
    const name = uniqueName('smoke-watch');
    created.push(name);
    await core.createNode({ body: { metadata: { name } } });
    const watch = new Watch(kc);
    const seen = new Promise<V1Node>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no MODIFIED event within 20 s')), 20_000);
      watch
        .watch(
          '/api/v1/nodes',
          { fieldSelector: `metadata.name=${name}` },
          (type: string, obj: V1Node) => {
            if (type === 'MODIFIED' && obj.metadata?.labels?.smoke === 'updated') {
              clearTimeout(timer);
              resolve(obj);
            }
          },
          (err: unknown) => {
            if (err) reject(err instanceof Error ? err : new Error(String(err)));
          },
        )
        .then(
          (req) => seen.finally(() => req.abort()),
          (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
        );
    });
    // Give the watch a moment to be established before the update it must see.
    await new Promise((r) => setTimeout(r, 300));
    const node = await core.readNode({ name });
    node.metadata = { ...node.metadata, labels: { ...node.metadata?.labels, smoke: 'updated' } };
    await core.replaceNode({ name, body: node });
    const event = await seen;
    expect(event.metadata?.labels?.smoke).toBe('updated');
  });

  it('refuses (403) a restricted identity what its role does not allow', async () => {
    const identity = await mintIdentity(info, kc, {
      name: uniqueName('smoke-reader'),
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
    });
    expect(identity.username).toMatch(/^system:serviceaccount:default:smoke-reader-/);
    const restricted = identity.kubeConfig.makeApiClient(CoreV1Api);
    // Allowed by its role:
    const nodes = await restricted.listNode();
    expect(Array.isArray(nodes.items)).toBe(true);
    // Not allowed:
    const denied = await restricted.deleteNode({ name: 'does-not-matter' }).then(
      () => undefined,
      (err: unknown) => err as { code?: number; body?: unknown },
    );
    expect(denied?.code).toBe(403);
    const secrets = await restricted.listNamespacedSecret({ namespace: 'kube-system' }).then(
      () => undefined,
      (err: unknown) => err as { code?: number },
    );
    expect(secrets?.code).toBe(403);
  });
});
