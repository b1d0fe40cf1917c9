// What an earlier test file can leave on the shared control plane that a later file's CCM would act on: Services a
// CCM was balancing when its file stopped it. Their load-balancer-cleanup finalizer keeps them (and their namespace)
// alive with no CCM left to release it, and the next CCM started, an upstream peer included, would ensure them in its
// own cloud (OCCM: load balancers in the OpenStack project, floating IPs it cannot attach).
import { CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions, type V1Service } from '@kubernetes/client-node';

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A Service some CCM balances or did: type LoadBalancer, or still holding a finalizer. */
function balanced(svc: V1Service): boolean {
  return svc.spec?.type === 'LoadBalancer' || (svc.metadata?.finalizers?.length ?? 0) > 0;
}

/**
 * Strips the finalizers of every balanced Service in the cluster and deletes it. Only for a moment when no test
 * runs a CCM on the control plane (between files); returns the `namespace/name` of each Service released.
 */
export async function releaseLeftoverServices(admin: KubeConfig): Promise<string[]> {
  const core = admin.makeApiClient(CoreV1Api);
  const leftovers = (await core.listServiceForAllNamespaces()).items.filter(balanced);
  await Promise.all(
    leftovers.map(async (svc) => {
      const name = svc.metadata?.name ?? '';
      const namespace = svc.metadata?.namespace ?? '';
      const gone = (err: unknown): void => {
        if ((err as { code?: number }).code !== 404) throw err;
      };
      if ((svc.metadata?.finalizers?.length ?? 0) > 0) {
        await core
          .patchNamespacedService({ name, namespace, body: { metadata: { finalizers: null } } }, MERGE_PATCH)
          .catch(gone);
      }
      await core.deleteNamespacedService({ name, namespace }).catch(gone);
    }),
  );
  return leftovers.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`);
}
