// node_controller_* metrics with upstream's names, help texts and buckets.
import { Histogram, type Registry } from 'prom-client';
import { exponentialBuckets } from '../../metrics/go-float.ts';
import { alpha } from '../../metrics/stability.ts';

export interface NodeControllerMetrics {
  taintRemovalDelay: Histogram;
  initialSyncDelay: Histogram;
}

const byRegistry = new WeakMap<Registry, NodeControllerMetrics>();

export function nodeControllerMetrics(registry: Registry): NodeControllerMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    // Upstream: ExponentialBuckets(1, 4, 6), 1 s .. ~17 min.
    const buckets = exponentialBuckets(1, 4, 6);
    m = {
      taintRemovalDelay: new Histogram({
        name: 'node_controller_cloud_provider_taint_removal_delay_seconds',
        help: alpha(
          'Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.',
        ),
        buckets,
        registers: [registry],
      }),
      initialSyncDelay: new Histogram({
        name: 'node_controller_initial_node_sync_delay_seconds',
        help: alpha(
          'Number of seconds after node creation when NodeController finished the initial synchronization of a single node.',
        ),
        buckets,
        registers: [registry],
      }),
    };
    byRegistry.set(registry, m);
  }
  return m;
}
