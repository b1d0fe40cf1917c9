// Writes the service controller makes: the cleanup finalizer (strategic merge: adds or removes just ours, keeps
// everyone else's) and status.loadBalancer, all through the status subresource as upstream's PatchService does: a
// finalizer change then never runs admission meant for Service spec updates (webhooks on "services"), and the audit
// log shows the same requests for both CCMs.
import type { V1LoadBalancerStatus } from '@kubernetes/client-node';
import type { LoadBalancerStatus } from '../../cloudprovider/index.ts';
import type { KubeClient } from '../../kube/client/client.ts';
import type { Wire } from '../../kube/client/wire.ts';
import type { WireService } from '../framework/wire-objects.ts';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from './rules.ts';

const servicePath = (svc: WireService) =>
  `/api/v1/namespaces/${encodeURIComponent(svc.metadata?.namespace ?? '')}/services/${encodeURIComponent(svc.metadata?.name ?? '')}`;

// The controllers act on what the informer delivers, never on these patches' answers: they are not parsed.
const ignoreResponse = { ignoreResponse: true } as const;

export function addFinalizer(client: KubeClient, svc: WireService): Promise<void> {
  return client.patch<void>(
    `${servicePath(svc)}/status`,
    { metadata: { finalizers: [LOAD_BALANCER_CLEANUP_FINALIZER] } },
    'strategic-merge',
    ignoreResponse,
  );
}

export function removeFinalizer(client: KubeClient, svc: WireService): Promise<void> {
  return client.patch<void>(
    `${servicePath(svc)}/status`,
    { metadata: { '$deleteFromPrimitiveList/finalizers': [LOAD_BALANCER_CLEANUP_FINALIZER] } },
    'strategic-merge',
    ignoreResponse,
  );
}

/** A merge patch replaces the ingress list whole; an empty status clears it (null deletes the field). */
export function patchLoadBalancerStatus(
  client: KubeClient,
  svc: WireService,
  status: Wire<V1LoadBalancerStatus>,
): Promise<void> {
  const ingress = status.ingress && status.ingress.length > 0 ? status.ingress : null;
  const body = { status: { loadBalancer: { ingress } } };
  return client.patch<void>(`${servicePath(svc)}/status`, body, 'merge', ignoreResponse);
}

/** The provider's load balancer status as the Service's status.loadBalancer (empty fields left out). */
export function wireLoadBalancerStatus(status: LoadBalancerStatus): Wire<V1LoadBalancerStatus> {
  return {
    ingress: status.ingress.map((i) => ({
      ...(i.ip ? { ip: i.ip } : {}),
      ...(i.hostname ? { hostname: i.hostname } : {}),
      ...(i.ipMode ? { ipMode: i.ipMode } : {}),
      ...(i.ports.length > 0
        ? {
            ports: i.ports.map((p) => ({ port: p.port, protocol: p.protocol, ...(p.error ? { error: p.error } : {}) })),
          }
        : {}),
    })),
  };
}
