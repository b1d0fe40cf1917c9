// More cloud-node and cloud-node-lifecycle scenarios: labels a Node already has, a providerID the kubelet set,
// Ready conditions that are Unknown or missing, an instance that never existed, a cloud that fails lookups.
import type { Scenario } from '../harness/scenario.ts';
import { initialized, nodes } from './checks.ts';

const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const BETA_TYPE = 'beta.kubernetes.io/instance-type';

export const labelsScenario: Scenario = {
  name: 'labels',
  seedCloud: (cloud) => {
    cloud.addInstance({ id: 'i-labels-old', name: 'labels-old', zone: 'dc-east-1b', labels: { team: 'a' } });
    cloud.addInstance({ id: 'i-labels-pid', name: 'labels-pid', type: 'dc.xlarge', zone: 'dc-west-1a' });
    cloud.addInstance({ id: 'i-labels-mine', name: 'labels-mine', labels: { team: 'cloud' } });
  },
  seedCluster: async (world) => {
    // Initialized long ago with beta labels only: cloud-node copies them to the GA keys.
    await world.createNode({
      name: 'labels-old',
      ready: true,
      initializedAs: 'i-labels-old',
      labels: { [BETA_ZONE]: 'dc-east-1b', [BETA_REGION]: 'dc-east-1', [BETA_TYPE]: 'dc.small' },
    });
    // Registered by a kubelet that set the providerID itself.
    await world.createNode({ name: 'labels-pid', ready: true, labels: {} });
    await world.patchNode('labels-pid', { spec: { providerID: 'devcloud://i-labels-pid' } });
    // Labels the node already has are not overwritten by the cloud's.
    await world.createNode({
      name: 'labels-mine',
      ready: true,
      labels: { 'devcloud.example/team': 'mine', 'topology.kubernetes.io/zone': 'elsewhere' },
    });
  },
  steps: [
    {
      name: 'initialized, beta labels copied',
      until: async (world) =>
        (await initialized(world, 'labels-pid', 'labels-mine')) &&
        (await nodes(world)).get('labels-old')?.metadata?.labels?.['topology.kubernetes.io/zone'] !== undefined,
      settle: ['node'],
    },
  ],
};

export const readinessScenario: Scenario = {
  name: 'ready',
  seedCloud: (cloud) => {
    for (const n of ['unknown', 'none', 'stopped']) cloud.addInstance({ id: `i-ready-${n}`, name: `ready-${n}` });
    cloud.stopInstance('i-ready-unknown');
    cloud.stopInstance('i-ready-none');
    cloud.stopInstance('i-ready-stopped');
  },
  seedCluster: async (world) => {
    await world.createNode({ name: 'ready-unknown', initializedAs: 'i-ready-unknown' });
    await world.createNode({ name: 'ready-none', initializedAs: 'i-ready-none' });
    await world.createNode({ name: 'ready-ghost', ready: false, initializedAs: 'i-ready-ghost' });
    await world.createNode({ name: 'ready-stopped', ready: false, initializedAs: 'i-ready-stopped' });
    const node = await world.core.readNodeStatus({ name: 'ready-unknown' });
    node.status = {
      ...node.status,
      conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'parity: unknown' }],
    };
    await world.core.replaceNodeStatus({ name: 'ready-unknown', body: node });
  },
  steps: [
    {
      name: 'Unknown, missing and False Ready conditions',
      until: async (world) => !(await nodes(world)).has('ready-ghost'),
      settle: ['lifecycle', 'lifecycle'],
    },
  ],
};

/** The cloud fails the first lookups of a new node: it stays tainted, then is initialized on a retry. */
export const cloudFailureScenario: Scenario = {
  name: 'cfail',
  seedCloud: (cloud) => void cloud.addInstance({ id: 'i-cfail-a', name: 'cfail-a' }),
  volatile: {
    path: /event\/Node\/cfail-a\/Warning\/[^/]+\/count$/,
    reason: 'how many failed lookups are retried before the knob runs out depends on the queue backoff timing',
  },
  steps: [
    {
      name: 'lookups fail twice, then succeed',
      act: async (world) => {
        world.cloud.setKnobs({ failNext: [{ kind: 'getInstanceByName', count: 2, status: 503 }] });
        await world.createNode({ name: 'cfail-a', ready: true });
      },
      until: (world) => initialized(world, 'cfail-a'),
      settle: ['node'],
    },
  ],
};
