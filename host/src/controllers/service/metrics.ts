// service_controller_* metrics with upstream's names and buckets.
import { Counter, Histogram, type Registry } from 'prom-client';
import { exponentialBuckets } from '../../metrics/go-float.ts';
import { alpha } from '../../metrics/stability.ts';

export interface ServiceControllerMetrics {
  loadBalancerSync: Counter;
  nodeSyncErrors: Counter;
  nodeSyncLatency: Histogram;
  updateHostLatency: Histogram;
}

const byRegistry = new WeakMap<Registry, ServiceControllerMetrics>();
// Upstream: ExponentialBuckets(1, 2, 15), 1 s .. 16384 s.
const buckets = exponentialBuckets(1, 2, 15);

export function serviceControllerMetrics(registry: Registry): ServiceControllerMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = {
      loadBalancerSync: new Counter({
        name: 'service_controller_loadbalancer_sync_total',
        help: alpha(
          'A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster',
        ),
        registers: [registry],
      }),
      nodeSyncErrors: new Counter({
        name: 'service_controller_nodesync_error_total',
        help: alpha(
          'A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster',
        ),
        registers: [registry],
      }),
      nodeSyncLatency: new Histogram({
        name: 'service_controller_nodesync_latency_seconds',
        help: alpha(
          'A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.',
        ),
        buckets,
        registers: [registry],
      }),
      updateHostLatency: new Histogram({
        name: 'service_controller_update_loadbalancer_host_latency_seconds',
        help: alpha('A metric measuring the latency for updating each load balancer hosts.'),
        buckets,
        registers: [registry],
      }),
    };
    byRegistry.set(registry, m);
  }
  return m;
}
