// Scenarios of the cloud-node and cloud-node-lifecycle controllers: initialization, provided-node-ip forms,
// address order and refresh, instances that stop, start or terminate under Ready and NotReady Nodes.
import type { Address, AddressType } from '../../../../devcloud/src/index.ts';
import { PROVIDED_IP, SHUTDOWN } from '../harness/objects.ts';
import type { Scenario } from '../harness/scenario.ts';
import { allocatePodCIDRs, hasTaint, initialized, nodes, routed } from './checks.ts';

/** Nodes initialized from the cloud (labels, zones, a bad label key), a deleted and a shut-down instance. */
export const initScenario: Scenario = {
  name: 'init',
  seedCloud: (cloud) => {
    cloud.addInstance({
      id: 'i-init-a',
      name: 'init-a',
      type: 'dc.large',
      zone: 'dc-east-1a',
      labels: { pool: 'web', 'bad key': 'x' },
    });
    cloud.addInstance({ id: 'i-init-b', name: 'init-b', zone: 'dc-east-1b' });
    cloud.addInstance({ id: 'i-init-d', name: 'init-d' });
    cloud.addInstance({ id: 'i-init-e', name: 'init-e', zone: 'dc-east-1c' });
    cloud.addInstance({ id: 'i-init-f', name: 'init-f', labels: { pool: 'batch' } });
    cloud.terminateInstance('i-init-d');
    cloud.stopInstance('i-init-e');
  },
  seedCluster: async (world) => {
    await world.createNode({ name: 'init-a', ready: true });
    await world.createNode({ name: 'init-b', ready: true });
    await world.createNode({ name: 'init-d', ready: false, initializedAs: 'i-init-d' });
    await world.createNode({ name: 'init-e', ready: false, initializedAs: 'i-init-e', podCIDRs: ['10.244.5.0/24'] });
  },
  steps: [
    {
      name: 'initialized, deleted, shut down',
      until: async (world) => {
        const all = await nodes(world);
        return (
          (await initialized(world, 'init-a', 'init-b')) &&
          !all.has('init-d') &&
          hasTaint(all.get('init-e'), SHUTDOWN) &&
          (await routed(world, 'init-e'))
        );
      },
      settle: ['route', 'node'],
    },
    {
      name: 'pod CIDRs allocated',
      act: async (world) => {
        await allocatePodCIDRs(world, 'init-a', ['10.244.1.0/24']);
        await allocatePodCIDRs(world, 'init-b', ['10.244.2.0/24']);
      },
      until: (world) => routed(world, 'init-a', 'init-b'),
      settle: ['route'],
    },
    {
      name: 'a node joins',
      act: (world) => world.createNode({ name: 'init-f', ready: true }),
      until: (world) => initialized(world, 'init-f'),
      settle: ['node'],
    },
    {
      name: 'its pod CIDR allocated',
      act: (world) => allocatePodCIDRs(world, 'init-f', ['10.244.6.0/24']),
      until: (world) => routed(world, 'init-f'),
      settle: ['route'],
    },
    {
      name: 'a node is deleted: its route goes',
      act: (world) => world.core.deleteNode({ name: 'init-b' }),
      until: (world) => !world.cloud.inventory().routes.some((r) => r.tags['k8s-node'] === 'init-b'),
      settle: ['route'],
    },
  ],
};

/** A Ready node without pod CIDRs: upstream's route controller leaves its NetworkUnavailable condition alone. */
export const noCidrScenario: Scenario = {
  name: 'nocidr',
  seedCloud: (cloud) => void cloud.addInstance({ id: 'i-nocidr-a', name: 'nocidr-a' }),
  seedCluster: (world) => world.createNode({ name: 'nocidr-a', ready: true }),
  steps: [
    {
      name: 'initialized, two route reconciles later',
      until: (world) => initialized(world, 'nocidr-a'),
      settle: ['route', 'route', 'node'],
    },
  ],
};

/** provided-node-ip forms (upstream parses strictly: no trimming, one IP per family, sloppy IPv4, mapped IPv6). */
const PROVIDED: readonly (readonly [string, string])[] = [
  ['plain', '10.0.8.1'],
  ['space', ' 10.0.8.2'],
  ['trail', '10.0.8.3 '],
  ['twov4', '10.0.8.4,10.0.8.40'],
  ['zeros', '010.000.008.005'],
  ['mapped', '::ffff:10.0.8.6'],
  ['dual', '10.0.8.7,fd00:8::7'],
  ['absent', '10.0.8.99'],
  ['v6only', 'fd00:8::8'],
];

export const providedIpScenario: Scenario = {
  name: 'pip',
  seedCloud: (cloud) => {
    PROVIDED.forEach(([form], i) => {
      const n = i + 1;
      cloud.addInstance({
        id: `i-pip-${form}`,
        name: `pip-${form}`,
        addresses: [
          { type: 'InternalIP', address: `10.0.8.${n}` },
          { type: 'InternalIP', address: `10.0.8.${n}0` },
          { type: 'InternalIP', address: `fd00:8::${n}` },
          { type: 'ExternalIP', address: `203.0.113.${n}` },
          { type: 'Hostname', address: `pip-${form}` },
        ],
      });
    });
  },
  seedCluster: async (world) => {
    for (const [form, value] of PROVIDED)
      await world.createNode({
        name: `pip-${form}`,
        ready: true,
        annotations: { [PROVIDED_IP]: value },
      });
  },
  steps: [
    {
      name: 'accepted forms initialized, refused ones tainted',
      until: (world) => initialized(world, 'pip-plain'),
      settle: ['node'],
    },
  ],
};

/** addr-a's addresses as the cloud lists them: `[type, address]` pairs in order. */
function addrA(...list: [AddressType, string][]): Address[] {
  return list.map(([type, address]) => ({ type, address }));
}

/** The cloud reorders, adds and removes a node's addresses; the periodic refresh writes them. */
export const addressScenario: Scenario = {
  name: 'addr',
  seedCloud: (cloud) =>
    void cloud.addInstance({
      id: 'i-addr-a',
      name: 'addr-a',
      addresses: addrA(
        ['InternalIP', '10.0.7.1'],
        ['InternalIP', '10.0.7.2'],
        ['ExternalIP', '203.0.113.71'],
        ['Hostname', 'addr-a'],
      ),
    }),
  seedCluster: (world) => world.createNode({ name: 'addr-a', ready: true }),
  steps: [
    { name: 'initialized', until: (world) => initialized(world, 'addr-a'), settle: ['node'] },
    {
      name: 'the cloud reorders the InternalIPs',
      act: async (world) =>
        world.cloud.patchInstance('i-addr-a', {
          addresses: addrA(
            ['InternalIP', '10.0.7.2'],
            ['InternalIP', '10.0.7.1'],
            ['ExternalIP', '203.0.113.71'],
            ['Hostname', 'addr-a'],
          ),
        }),
      settle: ['refresh'],
    },
    {
      name: 'the cloud drops the ExternalIP and adds an InternalDNS',
      act: async (world) =>
        world.cloud.patchInstance('i-addr-a', {
          addresses: addrA(
            ['InternalIP', '10.0.7.2'],
            ['InternalIP', '10.0.7.1'],
            ['InternalDNS', 'addr-a.internal'],
            ['Hostname', 'addr-a'],
          ),
        }),
      settle: ['refresh'],
    },
  ],
};

/** Instances stopped, started and terminated under Ready Nodes (nothing happens), then the Nodes go NotReady. */
export const lifecycleScenario: Scenario = {
  name: 'life',
  seedCloud: (cloud) => {
    for (const n of ['a', 'b', 'c']) cloud.addInstance({ id: `i-life-${n}`, name: `life-${n}` });
  },
  seedCluster: async (world) => {
    // life-b's instance is terminated: a pod CIDR would make its route a blackhole, deleted and created again.
    for (const [n, podCIDRs] of [
      ['a', ['10.244.90.0/24']],
      ['b', undefined],
      ['c', ['10.244.92.0/24']],
    ] as const)
      await world.createNode({ name: `life-${n}`, ready: true, initializedAs: `i-life-${n}`, podCIDRs });
  },
  steps: [
    {
      name: 'instances stop and terminate while Ready',
      act: async (world) => {
        world.cloud.stopInstance('i-life-a');
        world.cloud.terminateInstance('i-life-b');
        world.cloud.stopInstance('i-life-c');
      },
      settle: ['lifecycle', 'lifecycle'],
    },
    {
      name: 'the Nodes go NotReady',
      act: async (world) => {
        for (const n of ['a', 'b', 'c']) await world.setReady(`life-${n}`, false);
      },
      until: async (world) => {
        const all = await nodes(world);
        return hasTaint(all.get('life-a'), SHUTDOWN) && hasTaint(all.get('life-c'), SHUTDOWN) && !all.has('life-b');
      },
      settle: ['lifecycle'],
    },
    {
      name: 'life-a started and Ready, life-c Ready while still stopped',
      act: async (world) => {
        world.cloud.startInstance('i-life-a');
        await world.setReady('life-a', true);
        await world.setReady('life-c', true);
      },
      until: async (world) => {
        const all = await nodes(world);
        return !hasTaint(all.get('life-a'), SHUTDOWN) && !hasTaint(all.get('life-c'), SHUTDOWN);
      },
      settle: ['lifecycle'],
    },
  ],
};
