// Writes the service controller makes: the cleanup finalizer (strategic merge: adds or removes just ours, keeps
// everyone else's) and status.loadBalancer through the status subresource.
import type { V1LoadBalancerStatus, V1Service } from '@kubernetes/client-node';
import type { KubeClient } from '../../kube/client/client.ts';
import type { Wire } from '../../kube/client/wire.ts';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from './rules.ts';

export type WireService = Wire<V1Service>;

const servicePath = (svc: WireService) =>
  `/api/v1/namespaces/${encodeURIComponent(svc.metadata?.namespace ?? '')}/services/${encodeURIComponent(svc.metadata?.name ?? '')}`;

export function addFinalizer(client: KubeClient, svc: WireService): Promise<WireService> {
  return client.patch<WireService>(
    servicePath(svc),
    { metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] } },
    'strategic-merge',
  );
}

export function removeFinalizer(client: KubeClient, svc: WireService): Promise<WireService> {
  return client.patch<WireService>(
    servicePath(svc),
    { metadata: { '$deleteFromPrimitiveList/finalizers': [LOAD_BALANCER_CLEANUP_FINALIZER] } },
    'strategic-merge',
  );
}

/** A merge patch replaces the ingress list whole; an empty status clears it (null deletes the field). */
export function patchLoadBalancerStatus(
  client: KubeClient,
  svc: WireService,
  status: Wire<V1LoadBalancerStatus>,
): Promise<WireService> {
  const ingress = status.ingress && status.ingress.length > 0 ? status.ingress : null;
  return client.patch<WireService>(`${servicePath(svc)}/status`, { status: { loadBalancer: { ingress } } }, 'merge');
}
