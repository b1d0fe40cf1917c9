// node_controller_* metrics with upstream's names and help texts.
import { Histogram, type Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';

export interface NodeControllerMetrics {
  taintRemovalDelay: Histogram;
  initialSyncDelay: Histogram;
}

const byRegistry = new WeakMap<Registry, NodeControllerMetrics>();

export function nodeControllerMetrics(registry: Registry): NodeControllerMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    const buckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000];
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
