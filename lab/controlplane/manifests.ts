// Applies the operator manifests under manifests/ to the test control plane with server-side apply, as
// `kubectl apply --server-side` would, so tests run the CCM with exactly the RBAC an operator installs.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
  PatchStrategy,
} from '@kubernetes/client-node';
import type { ControlPlaneInfo } from './controlplane.ts';
import { kubeConfigFor } from './kube.ts';

export const MANIFESTS_DIR = join(import.meta.dirname, '..', '..', 'manifests');

/**
 * The documents exactly as written: client-node's loadAllYaml would drop (and so hide) misspelled fields. `dir` is
 * where the manifests are: the repository's by default, the installed package's for `wasm-ccm dev`.
 */
export function loadManifests(file: string, dir = MANIFESTS_DIR): KubernetesObject[] {
  return (loadAll(readFileSync(join(dir, file), 'utf8')) as unknown[]).filter(
    (o): o is KubernetesObject => o !== null && typeof o === 'object',
  );
}

export async function applyManifests(
  admin: KubeConfig,
  objects: readonly KubernetesObject[],
  options: { dryRun?: boolean } = {},
): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(admin);
  const applied: KubernetesObject[] = [];
  for (const obj of objects) {
    applied.push(
      await client.patch(
        obj,
        undefined,
        options.dryRun ? 'All' : undefined,
        'wasm-ccm-tests',
        true,
        PatchStrategy.ServerSideApply,
      ),
    );
  }
  return applied;
}

/** A kubeconfig for the CCM's ServiceAccount from manifests/rbac.yaml (token from the TokenRequest API). */
export async function ccmIdentity(
  info: ControlPlaneInfo,
  admin: KubeConfig,
): Promise<{ token: string; kubeConfig: KubeConfig }> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: 'cloud-controller-manager',
    namespace: 'kube-system',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error('TokenRequest for kube-system/cloud-controller-manager returned no token');
  return {
    token,
    kubeConfig: kubeConfigFor(info, 'system:serviceaccount:kube-system:cloud-controller-manager', token),
  };
}
