// route_controller_* metrics with upstream's names and help texts (controllers/route/metrics.go).
import { Counter, type Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';

const byRegistry = new WeakMap<Registry, Counter>();

/** route_controller_route_sync_total: one per reconciliation that reaches the cloud's route list. */
export function routeSyncCounter(registry: Registry): Counter {
  let counter = byRegistry.get(registry);
  if (!counter) {
    counter = new Counter({
      name: 'route_controller_route_sync_total',
      help: alpha('A metric counting the amount of times routes have been synced with the cloud provider.'),
      registers: [registry],
    });
    byRegistry.set(registry, counter);
  }
  return counter;
}
