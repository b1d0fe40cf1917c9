// The leader elector's metrics: component-base's two for client-go's leader election (upstream names, labels and
// help), and wasm-ccm's own histogram of the time between renewals. One set per registry.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';

export interface ElectionMetrics {
  /** leader_election_master_status{name}: 1 while leading. */
  status: Gauge<'name'>;
  /** leader_election_slowpath_total{name}: renewals that needed a GET first (the optimistic update failed). */
  slowpath: Counter<'name'>;
  /** wasm_ccm_leader_election_renew_interval_seconds{name}: the time between two successful renewals. */
  renewInterval: Histogram<'name'>;
}

const byRegistry = new WeakMap<Registry, ElectionMetrics>();

export function electionMetrics(registry: Registry): ElectionMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = create(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

function create(registry: Registry): ElectionMetrics {
  const registers = [registry];
  const labelNames = ['name'] as const;
  return {
    status: new Gauge({
      name: 'leader_election_master_status',
      help: alpha(
        'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates ' +
          "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      ),
      labelNames,
      registers,
    }),
    slowpath: new Counter({
      name: 'leader_election_slowpath_total',
      help: alpha(
        "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the " +
          'lease. Please make sure to group by name.',
      ),
      labelNames,
      registers,
    }),
    renewInterval: new Histogram({
      name: 'wasm_ccm_leader_election_renew_interval_seconds',
      help: alpha(
        'Time between two successful renewals of the lease while leading: the retry period when healthy; a renewal ' +
          'that would come later than the renew deadline is never sent, and leadership is lost instead.',
      ),
      labelNames,
      buckets: [0.5, 1, 2, 3, 4, 5, 7.5, 10, 15, 20, 30],
      registers,
    }),
  };
}
