// Kubeconfig impersonation against the real apiserver: an identity allowed to impersonate, with a kubeconfig whose
// user says `as`, `as-uid`, `as-groups` and `as-user-extra`, acts with the impersonated identity's rights (and not
// its own) on requests and watches, and the apiserver sees exactly the identity the kubeconfig names.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import { apiErrorInfo } from '../../../host/src/kube/client/errors.ts';
import { loadKubeConfig } from '../../../host/src/kube/client/kubeconfig.ts';
import { type Identity, mintIdentity, adminKubeConfig, uniqueName } from '../../../lab/controlplane/index.ts';

interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

describe('kubeconfig impersonation (real apiserver)', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  const name = uniqueName('imp');
  const target = `${name}-jane`;
  const [groupA, groupB] = [`${name}-dev`, `${name}-ops`];
  const node = `${name}-node`;
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-imp-'));
  let impersonator: Identity;

  beforeAll(async () => {
    // The impersonator may impersonate exactly these names, and may list namespaces itself (the target may not).
    impersonator = await mintIdentity(info, admin, {
      name: `${name}-sa`,
      rules: [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: [target] },
        { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: [groupA, groupB] },
        { apiGroups: ['authentication.k8s.io'], resources: ['*'], verbs: ['impersonate'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
      ],
    });
    // The target may read nodes; the second group may list services.
    await bind(
      `${name}-nodes`,
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      {
        kind: 'User',
        name: target,
      },
    );
    await bind(
      `${name}-services`,
      { apiGroups: [''], resources: ['services'], verbs: ['list'] },
      {
        kind: 'Group',
        name: groupB,
      },
    );
  });

  afterAll(async () => {
    for (const role of [`${name}-nodes`, `${name}-services`, `${name}-sa`]) {
      await rbac.deleteClusterRoleBinding({ name: role }).catch(() => undefined);
      await rbac.deleteClusterRole({ name: role }).catch(() => undefined);
    }
    await core.deleteNamespacedServiceAccount({ name: `${name}-sa`, namespace: 'default' }).catch(() => undefined);
    await core.deleteNode({ name: node }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  async function bind(role: string, rule: V1PolicyRule, subject: { kind: string; name: string }): Promise<void> {
    await rbac.createClusterRole({ body: { metadata: { name: role }, rules: [rule] } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
      },
    });
  }

  function clientFor(file: string, user: Record<string, unknown>): KubeClient {
    const path = join(dir, file);
    writeFileSync(
      path,
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: info.server, 'certificate-authority-data': btoa(info.caPem) } }],
        users: [{ name: 'u', user: { token: impersonator.token, ...user } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    return new KubeClient(loadKubeConfig({ kubeconfig: path, env: {} }).credentials);
  }

  const status = (p: Promise<unknown>): Promise<number | undefined> =>
    p.then(
      () => 200,
      (err: unknown) => apiErrorInfo(err).code,
    );

  const impersonating = {
    as: target,
    'as-uid': 'uid-42',
    'as-groups': [groupA, groupB],
    'as-user-extra': { scopes: ['view', 'edit'], 'Team/Name ü': ['a'] },
  };

  it('is seen by the apiserver as exactly the identity the kubeconfig names', async () => {
    const client = clientFor('as.json', impersonating);
    const review = await client.request<{ status: { userInfo: UserInfo } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const user = review.status.userInfo;
    expect(user.username).toBe(target);
    expect(user.uid).toBe('uid-42');
    expect(user.groups).toEqual(expect.arrayContaining([groupA, groupB, 'system:authenticated']));
    expect(user.extra).toEqual({ scopes: ['view', 'edit'], 'team/name ü': ['a'] });
  });

  it("acts with the impersonated identity's rights, not its own", async () => {
    const own = clientFor('own.json', {});
    const as = clientFor('as-rights.json', impersonating);
    // Nodes: the target's right only; namespaces: the impersonator's only; services: the second group's only.
    expect(await status(own.request({ path: '/api/v1/nodes' }))).toBe(403);
    expect(await status(as.request({ path: '/api/v1/nodes' }))).toBe(200);
    expect(await status(own.request({ path: '/api/v1/namespaces' }))).toBe(200);
    expect(await status(as.request({ path: '/api/v1/namespaces' }))).toBe(403);
    expect(await status(as.request({ path: '/api/v1/services' }))).toBe(200);
    expect(
      await status(
        clientFor('one-group.json', { ...impersonating, 'as-groups': [groupA] }).request({ path: '/api/v1/services' }),
      ),
    ).toBe(403);
  });

  it('impersonates on watches too', async () => {
    const as = clientFor('as-watch.json', impersonating);
    const abort = new AbortController();
    try {
      const events = await as.watch('/api/v1/nodes', { fieldSelector: `metadata.name=${node}` }, abort.signal);
      await core.createNode({ body: { metadata: { name: node } } });
      const first = await events.next();
      expect(first.value).toMatchObject({ type: 'ADDED', object: { metadata: { name: node } } });
    } finally {
      abort.abort();
    }
    // Its own identity may not watch nodes: the watch above ran as the target.
    const own = clientFor('own-watch.json', {});
    expect(await status(own.watch('/api/v1/nodes', {}, AbortSignal.timeout(10_000)))).toBe(403);
  });

  it('is refused by the apiserver for a user it may not impersonate', async () => {
    // Listing namespaces is the impersonator's own right: refused here because the impersonation itself is.
    const client = clientFor('other.json', { as: `${name}-someone-else` });
    expect(await status(client.request({ path: '/api/v1/namespaces' }))).toBe(403);
  });
});
