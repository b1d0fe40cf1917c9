// manifests/rbac.yaml gives the CCM exactly what upstream's controllers need, and not more.
import { AuthorizationV1Api, type V1ResourceAttributes } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminKubeConfig, applyManifests, ccmIdentity, loadManifests } from '../../../lab/controlplane/index.ts';

const USER = 'system:serviceaccount:kube-system:cloud-controller-manager';

describe('manifests/rbac.yaml', () => {
  const info = inject('controlPlane');
  const admin = adminKubeConfig(info);
  const authz = admin.makeApiClient(AuthorizationV1Api);

  async function allowed(attrs: V1ResourceAttributes): Promise<boolean> {
    const review = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: USER,
          groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
          resourceAttributes: attrs,
        },
      },
    });
    return review.status?.allowed === true;
  }

  beforeAll(async () => {
    const objects = loadManifests('rbac.yaml');
    await applyManifests(admin, objects, { dryRun: true });
    await applyManifests(admin, objects);
  });

  it.each<[string, V1ResourceAttributes]>([
    ['watch nodes', { verb: 'watch', resource: 'nodes' }],
    ['update nodes', { verb: 'update', resource: 'nodes' }],
    ['delete nodes', { verb: 'delete', resource: 'nodes' }],
    ['patch nodes/status', { verb: 'patch', resource: 'nodes', subresource: 'status' }],
    ['list services', { verb: 'list', resource: 'services' }],
    [
      'patch services/status (finalizer and load balancer status)',
      { verb: 'patch', resource: 'services', subresource: 'status', namespace: 'default' },
    ],
    ['create events', { verb: 'create', resource: 'events', namespace: 'default' }],
    ['patch events', { verb: 'patch', resource: 'events', namespace: 'kube-system' }],
    [
      'update its Lease',
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
        name: 'cloud-controller-manager',
      },
    ],
    [
      'create a Lease in kube-system',
      { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system' },
    ],
    ['watch plugin ConfigMaps in kube-system', { verb: 'watch', resource: 'configmaps', namespace: 'kube-system' }],
    [
      'get a plugin ConfigMap',
      { verb: 'get', resource: 'configmaps', namespace: 'kube-system', name: 'devcloud-plugin' },
    ],
    ['create tokenreviews', { verb: 'create', group: 'authentication.k8s.io', resource: 'tokenreviews' }],
    [
      'create subjectaccessreviews',
      { verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
    ],
  ])('allows: %s', async (_what, attrs) => {
    expect(await allowed(attrs)).toBe(true);
  });

  it.each<[string, V1ResourceAttributes]>([
    ['read secrets', { verb: 'get', resource: 'secrets', namespace: 'kube-system' }],
    ['read ConfigMaps outside kube-system', { verb: 'list', resource: 'configmaps', namespace: 'default' }],
    ['change plugin ConfigMaps', { verb: 'update', resource: 'configmaps', namespace: 'kube-system' }],
    ['create nodes', { verb: 'create', resource: 'nodes' }],
    ['delete services', { verb: 'delete', resource: 'services', namespace: 'default' }],
    ['change a Service itself', { verb: 'patch', resource: 'services', namespace: 'default' }],
    ['create services', { verb: 'create', resource: 'services', namespace: 'default' }],
    ['list pods', { verb: 'list', resource: 'pods' }],
    [
      'update another Lease',
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace: 'kube-system',
        name: 'kube-scheduler',
      },
    ],
    [
      'create Leases elsewhere',
      { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: 'default' },
    ],
    ['escalate RBAC', { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }],
  ])('denies: %s', async (_what, attrs) => {
    expect(await allowed(attrs)).toBe(false);
  });

  it('yields a working token for the ServiceAccount', async () => {
    const identity = await ccmIdentity(info, admin);
    expect(identity.token.split('.')).toHaveLength(3);
  });
});
