// The metrics wasm-ccm shares with the upstream cloud-controller-manager have upstream's name, type, labels and help
// text, stability prefix included, as component-base prints them. The table is taken from the v0.36 sources:
// k8s.io/cloud-provider controllers/{node,service,route}/metrics.go and k8s.io/component-base
// metrics/prometheus/{workqueue,restclient,clientgo/leaderelection,controllers}/metrics.go.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { runningManagedControllers } from '../../../host/src/app/metrics.ts';
import { nodeControllerMetrics } from '../../../host/src/controllers/node/metrics.ts';
import { routeSyncCounter } from '../../../host/src/controllers/route/metrics.ts';
import { serviceControllerMetrics } from '../../../host/src/controllers/service/metrics.ts';
import { restMetrics } from '../../../host/src/kube/client/rest-metrics.ts';
import { realClock } from '../../../host/src/kube/clock.ts';
import { electionMetrics } from '../../../host/src/kube/leaderelection/election-metrics.ts';
import { queueMetrics } from '../../../host/src/kube/workqueue/metrics.ts';

interface UpstreamMetric {
  type: 'counter' | 'gauge' | 'histogram';
  labels: string[];
  help: string;
}

const UPSTREAM: Record<string, UpstreamMetric> = {
  node_controller_cloud_provider_taint_removal_delay_seconds: {
    type: 'histogram',
    labels: [],
    help: '[ALPHA] Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.',
  },
  node_controller_initial_node_sync_delay_seconds: {
    type: 'histogram',
    labels: [],
    help: '[ALPHA] Number of seconds after node creation when NodeController finished the initial synchronization of a single node.',
  },
  service_controller_loadbalancer_sync_total: {
    type: 'counter',
    labels: [],
    help: '[ALPHA] A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster',
  },
  service_controller_nodesync_error_total: {
    type: 'counter',
    labels: [],
    help: '[ALPHA] A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster',
  },
  service_controller_nodesync_latency_seconds: {
    type: 'histogram',
    labels: [],
    help: '[ALPHA] A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.',
  },
  service_controller_update_loadbalancer_host_latency_seconds: {
    type: 'histogram',
    labels: [],
    help: '[ALPHA] A metric measuring the latency for updating each load balancer hosts.',
  },
  route_controller_route_sync_total: {
    type: 'counter',
    labels: [],
    help: '[ALPHA] A metric counting the amount of times routes have been synced with the cloud provider.',
  },
  workqueue_depth: { type: 'gauge', labels: ['name'], help: '[BETA] Current depth of workqueue' },
  workqueue_adds_total: { type: 'counter', labels: ['name'], help: '[BETA] Total number of adds handled by workqueue' },
  workqueue_queue_duration_seconds: {
    type: 'histogram',
    labels: ['name'],
    help: '[BETA] How long in seconds an item stays in workqueue before being requested.',
  },
  workqueue_work_duration_seconds: {
    type: 'histogram',
    labels: ['name'],
    help: '[BETA] How long in seconds processing an item from workqueue takes.',
  },
  workqueue_unfinished_work_seconds: {
    type: 'gauge',
    labels: ['name'],
    help: "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
  },
  workqueue_longest_running_processor_seconds: {
    type: 'gauge',
    labels: ['name'],
    help: '[BETA] How many seconds has the longest running processor for workqueue been running.',
  },
  workqueue_retries_total: {
    type: 'counter',
    labels: ['name'],
    help: '[BETA] Total number of retries handled by workqueue',
  },
  rest_client_requests_total: {
    type: 'counter',
    labels: ['code', 'method', 'host'],
    help: '[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.',
  },
  rest_client_request_duration_seconds: {
    type: 'histogram',
    labels: ['verb', 'host'],
    help: '[ALPHA] Request latency in seconds. Broken down by verb, and host.',
  },
  rest_client_rate_limiter_duration_seconds: {
    type: 'histogram',
    labels: ['verb', 'host'],
    help: '[ALPHA] Client side rate limiter latency in seconds. Broken down by verb, and host.',
  },
  rest_client_request_retries_total: {
    type: 'counter',
    labels: ['code', 'verb', 'host'],
    help: '[ALPHA] Number of request retries, partitioned by status code, verb, and host.',
  },
  leader_election_master_status: {
    type: 'gauge',
    labels: ['name'],
    help: "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
  },
  leader_election_slowpath_total: {
    type: 'counter',
    labels: ['name'],
    help: "[ALPHA] Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
  },
  running_managed_controllers: {
    type: 'gauge',
    labels: ['name', 'manager'],
    help: '[BETA] Indicates where instances of a controller are currently running',
  },
};

function registryOfEveryMetric(): Registry {
  const registry = new Registry();
  nodeControllerMetrics(registry);
  serviceControllerMetrics(registry);
  routeSyncCounter(registry);
  queueMetrics('probe', registry, realClock);
  restMetrics(registry);
  electionMetrics(registry);
  runningManagedControllers(registry);
  return registry;
}

describe('metrics shared with upstream', () => {
  const registry = registryOfEveryMetric();

  it.each(Object.entries(UPSTREAM))('%s has upstream type, labels and help', async (name, upstream) => {
    const metric = registry.getSingleMetric(name) as { labelNames?: readonly string[] } | undefined;
    expect(metric, `${name} is not registered`).toBeDefined();
    const lines = (await registry.getSingleMetricAsString(name)).split('\n');
    expect(lines).toContain(`# HELP ${name} ${upstream.help}`);
    expect(lines).toContain(`# TYPE ${name} ${upstream.type}`);
    expect([...(metric?.labelNames ?? [])]).toEqual(upstream.labels);
  });

  it("gives wasm-ccm's own metrics the ALPHA prefix too", async () => {
    const text = await registry.metrics();
    const helps = text.split('\n').filter((l) => l.startsWith('# HELP '));
    expect(helps.length).toBeGreaterThanOrEqual(Object.keys(UPSTREAM).length);
    for (const line of helps) expect(line).toMatch(/^# HELP \S+ \[(ALPHA|BETA|STABLE)\] /);
  });
});
