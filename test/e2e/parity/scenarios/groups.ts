// The parity groups: each runs on one control plane, devcloud and CCM per side. Scenarios in a group are
// independent (their own names, their own nodes by label) and run one after the other.
import type { Group } from '../harness/scenario.ts';
import {
  webScenario,
  noNodePortsScenario,
  portsScenario,
  trafficPolicyScenario,
  typeChangeScenario,
} from './lb-basics.ts';
import {
  classScenario,
  exclusionScenario,
  nodeStatesScenario,
  orphanScenario,
  sourceRangesScenario,
} from './lb-nodes.ts';
import { serviceCacheScenario } from './lb-cache.ts';
import { churnScenario } from './lb-churn.ts';
import { serviceChangesScenario } from './lb-changes.ts';
import { deleteRetryScenario, preexistingScenario } from './lb-retry.ts';
import { addressScenario, initScenario, lifecycleScenario, noCidrScenario, providedIpScenario } from './nodes.ts';
import { cloudFailureScenario, labelsScenario, readinessScenario } from './nodes-more.ts';
import { dualStackScenario, routeFailureScenario, strayRoutesScenario } from './routes.ts';
import { budgetScenario, routeAggregationScenario } from './events.ts';
import { gatedGroup } from './gated.ts';

export const GROUPS: readonly Group[] = [
  {
    name: 'nodes-and-routes',
    clusterCIDRs: ['10.244.0.0/16', 'fd00:10:244::/56'],
    flags: ['--node-status-update-frequency=2s'],
    lifecyclePool: 8,
    scenarios: [
      initScenario,
      noCidrScenario,
      providedIpScenario,
      addressScenario,
      lifecycleScenario,
      dualStackScenario,
      strayRoutesScenario,
      routeFailureScenario,
      routeAggregationScenario,
      labelsScenario,
      readinessScenario,
      cloudFailureScenario,
    ],
    settle: ['node', 'route', 'lifecycle'],
  },
  {
    name: 'load-balancers',
    clusterCIDRs: ['10.244.0.0/16'],
    // No routes here: the node-and-route group covers them, and these nodes have no pod CIDRs.
    flags: ['--configure-cloud-routes=false'],
    everyStep: ['service'],
    scenarios: [
      preexistingScenario,
      webScenario,
      typeChangeScenario,
      portsScenario,
      noNodePortsScenario,
      trafficPolicyScenario,
      classScenario,
      exclusionScenario,
      nodeStatesScenario,
      sourceRangesScenario,
      orphanScenario,
      serviceChangesScenario,
      budgetScenario,
      deleteRetryScenario,
      serviceCacheScenario,
    ],
    settle: ['service'],
  },
  {
    // A group of its own: its 200 Nodes would be in the startup node sync of the other load-balancer scenarios
    // (both CCMs run one from the informer's initial list; whether it reaches a Service being ensured is timing).
    // Each node sync writes an Event per load balancer (~110): at the default 20 QPS that alone takes 5 s.
    name: 'churn',
    clusterCIDRs: ['10.244.0.0/16'],
    flags: ['--configure-cloud-routes=false', '--kube-api-qps=100', '--kube-api-burst=200'],
    everyStep: ['service'],
    scenarios: [churnScenario],
    settle: ['service'],
  },
  gatedGroup,
];

/** The groups with only the scenarios PARITY_SCENARIOS names (comma-separated), for running one while developing. */
export function selectedGroups(filter: string | undefined): Group[] {
  if (!filter) return [...GROUPS];
  const wanted = new Set(filter.split(',').map((s) => s.trim()));
  return GROUPS.map((g) => ({ ...g, scenarios: g.scenarios.filter((s) => wanted.has(s.name)) })).filter(
    (g) => g.scenarios.length > 0,
  );
}
