// Differences between OCCM v1.36.0 and wasm-ccm + plugins/openstack that the OpenStack parity test accepts, each
// with its reason; plugins/openstack/README.md ("Where it differs from OCCM") says the same. Paths are the keys of
// the parity snapshot (`<checkpoint>/node/<name>/...`, `<checkpoint>/octavia/<lb name>/...`, ...).
import type { AllowedDifference } from '../../../support/parity/allow-list.ts';

const OCCM_ONLY = (upstream: string | undefined, wasm: string | undefined): boolean =>
  upstream !== undefined && wasm === undefined;
const WASM_ONLY = (upstream: string | undefined, wasm: string | undefined): boolean =>
  upstream === undefined && wasm !== undefined;

export const OPENSTACK_ALLOWED_DIFFERENCES: readonly AllowedDifference[] = [
  {
    path: /\/service\/web\/annotations\/loadbalancer\.openstack\.org~1load-balancer-(id|address)$/,
    values: OCCM_ONLY,
    reason:
      "OCCM writes the load balancer's ID and address on the Service; the plugin has no Kubernetes client and " +
      'writes nothing (it reads load-balancer-id when an operator or OCCM set it)',
  },
  {
    // OCCM's own write of the annotation is an update of the Service, which the service controller syncs again.
    path: /\/events\/service\/web\/Normal (Ensuring|Ensured)LoadBalancer$/,
    values: (upstream, wasm) => upstream === '2' && wasm === '1',
    reason:
      "one ensure instead of two: OCCM's patch of the Service with the load-balancer-id annotation is a Service " +
      'update, and the service controller ensures again (one more EnsuringLoadBalancer / EnsuredLoadBalancer)',
  },
  {
    path: /\/octavia\/[^/]+\/loadBalancer\/tags\/(\[kubernetes-service-uid=\{service uid\}\]|#order)$/,
    values: WASM_ONLY,
    reason:
      "the plugin tags the load balancer with its Service's UID (kubernetes-service-uid=<uid>), so that a " +
      'load balancer of a deleted Service of the same name is never taken for the new one; OCCM owns by name only',
  },
];
