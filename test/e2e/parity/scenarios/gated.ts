// The group with feature-gated behaviour: CloudControllerManagerWatchBasedRoutesReconciliation (route reconciles
// on node events, at most one per 10 s, instead of a timer), a dual-stack cluster CIDR with IPv6 first, an
// order-sensitive --controllers (`route,-route`: the first entry naming a controller wins) and JSON logs.
import { readFileSync } from 'node:fs';
import type { Group, Scenario } from '../harness/scenario.ts';
import type { World } from '../harness/world.ts';
import { routed } from './checks.ts';

const OURS = { 'k8s-cluster': 'kubernetes' };

/** What both CCMs' JSON logs are compared on: every line a JSON object, and the keys of "Event occurred". */
function jsonLogShape(world: World): Record<string, string> {
  const path = world.ccmLogPath();
  if (!path) throw new Error('the CCM has no log file');
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const records: Record<string, unknown>[] = [];
  const notJson: string[] = [];
  for (const line of lines) {
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        records.push(value as Record<string, unknown>);
        continue;
      }
    } catch {
      // counted below
    }
    notJson.push(line);
  }
  const eventKeys = new Set(records.filter((r) => r.msg === 'Event occurred').flatMap((r) => Object.keys(r)));
  return {
    'log/lines-not-json': notJson.length === 0 ? 'none' : `${notJson.length}, first: ${notJson[0]}`,
    'log/event-occurred-keys': JSON.stringify([...eventKeys].sort()),
  };
}

export const watchRoutesScenario: Scenario = {
  name: 'wr',
  seedCloud: (cloud) => {
    cloud.addInstance({ id: 'i-wr-a', name: 'wr-a' });
    cloud.addInstance({ id: 'i-wr-b', name: 'wr-b' });
    cloud.addRoute({
      name: 'wr-stray',
      destinationCidr: 'fd00:10:244:9::/64',
      targetInstanceId: 'i-wr-a',
      tags: { ...OURS, 'k8s-node': 'wr-gone' },
    });
  },
  seedCluster: (world) =>
    world.createNode({
      name: 'wr-a',
      ready: true,
      initializedAs: 'i-wr-a',
      podCIDRs: ['fd00:10:244:1::/64', '10.244.1.0/24'],
    }),
  steps: [
    {
      name: 'routed from the nodes at start, the stray route deleted',
      until: async (world) =>
        (await routed(world, 'wr-a')) && !world.cloud.inventory().routes.some((r) => r.name === 'wr-stray'),
    },
    {
      name: 'a node joins: routed on its add event, within the 10 s rate limit',
      act: (world) =>
        world.createNode({
          name: 'wr-b',
          ready: true,
          initializedAs: 'i-wr-b',
          podCIDRs: ['fd00:10:244:2::/64', '10.244.2.0/24'],
        }),
      until: (world) => routed(world, 'wr-b'),
      settle: ['service'],
      observe: jsonLogShape,
    },
  ],
};

export const gatedGroup: Group = {
  name: 'gated',
  clusterCIDRs: ['fd00:10:244::/56', '10.244.0.0/16'],
  flags: [
    '--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true',
    '--controllers=route,-route',
    '--logging-format=json',
  ],
  scenarios: [watchRoutesScenario],
  // No route watermark: a seeded stray route is deleted only when a node event triggers a reconcile.
  settle: ['service'],
};
