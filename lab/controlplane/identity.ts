// Restricted identities for RBAC tests: a ServiceAccount bound to a ClusterRole, with a token from the
// TokenRequest API, exactly how the CCM authenticates when it runs in a cluster.
import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import type { ControlPlaneInfo } from './controlplane.ts';
import { kubeConfigFor } from './kube.ts';

export interface IdentityRequest {
  name: string;
  namespace?: string;
  /** Rules for a ClusterRole created for this identity (named like the identity). */
  rules?: V1PolicyRule[];
  /** Or an existing ClusterRole to bind. */
  clusterRole?: string;
  expirationSeconds?: number;
}

export interface Identity {
  username: string;
  token: string;
  kubeConfig: KubeConfig;
}

export async function mintIdentity(info: ControlPlaneInfo, admin: KubeConfig, req: IdentityRequest): Promise<Identity> {
  const namespace = req.namespace ?? 'default';
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: req.name } } });

  let roleName = req.clusterRole;
  if (!roleName) {
    if (!req.rules) throw new Error('mintIdentity: give rules or clusterRole');
    roleName = req.name;
    await rbac.createClusterRole({ body: { metadata: { name: roleName }, rules: req.rules } });
  }
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: req.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: req.name, namespace }],
    },
  });
  const tokenRequest = await core.createNamespacedServiceAccountToken({
    name: req.name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: req.expirationSeconds ?? 3600 } },
  });
  const token = tokenRequest.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${req.name} returned no token`);
  const username = `system:serviceaccount:${namespace}:${req.name}`;
  return { username, token, kubeConfig: kubeConfigFor(info, username, token) };
}
