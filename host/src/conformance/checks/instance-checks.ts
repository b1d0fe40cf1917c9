// InstancesV2 and legacy Instances against the fixture's running, stopped and missing nodes, with upstream's
// semantics: a stopped instance exists and is shut down; a missing (or terminated) one does not exist and its
// metadata is InstanceNotFound, which is what lets the node controllers delete its Node.
import type { Node } from '../../abi/index.ts';
import { type Check, type CheckContext, count, expectCode, expectOk, fail, forEach, skip } from '../check.ts';
import { describeOutcome } from '../probe.ts';

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// The node controller drops these keys (with a warning): a provider offering them loses them.
const RESERVED = /(^|\.)(kubernetes|k8s)\.io\//;

function labelProblem(key: string, value: string): string | undefined {
  if (RESERVED.test(key)) return `label ${key} is under kubernetes.io/k8s.io (the node controller drops it)`;
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (slash >= 0 && !DNS_SUBDOMAIN.test(key.slice(0, slash))) return `label ${key} has an invalid prefix`;
  if (!LABEL_NAME.test(name)) return `label key ${key} is not a valid label name`;
  if (!LABEL_VALUE.test(value)) return `label ${key} has an invalid value ${JSON.stringify(value)}`;
  return undefined;
}

function needNodes(nodes: Node[], what: string): Node[] {
  if (nodes.length === 0) skip(`the fixture lists no ${what} nodes`);
  return nodes;
}

/** The node's provider ID: the fixture's, else the one the plugin gave in instanceMetadata. */
function providerIDOf(ctx: CheckContext, node: Node): string {
  return node.providerID || ctx.state.providerIDs.get(node.name) || '';
}

const bare = (node: Node): Node => ({ ...node, providerID: '' });

export const instanceChecks: Check[] = [
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceMetadata of running nodes',
    async run(ctx) {
      const prefix = `${ctx.description.providerName}://`;
      const zones = new Set<string>();
      await forEach(ctx.fixture.running, async (node) => {
        const md = expectOk(await ctx.probe.call('instanceMetadata', { node }), `instanceMetadata(${node.name})`);
        if (!md.providerID.startsWith(prefix) || md.providerID.length === prefix.length) {
          fail(`instanceMetadata(${node.name}).providerID "${md.providerID}" is not ${prefix}<id>`);
        }
        if (node.providerID !== '' && md.providerID !== node.providerID) {
          fail(
            `instanceMetadata(${node.name}).providerID "${md.providerID}" differs from the node's "${node.providerID}"`,
          );
        }
        for (const [k, v] of Object.entries(md.additionalLabels)) {
          const problem = labelProblem(k, v);
          if (problem) fail(`instanceMetadata(${node.name}): ${problem}`);
        }
        ctx.state.providerIDs.set(node.name, md.providerID);
        zones.add(`${md.region}/${md.zone}`);
      });
      return `${count(ctx.fixture.running.length, 'node')}; region/zone ${[...zones].join(', ')}`;
    },
  },
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceMetadata by name (no providerID)',
    async run(ctx) {
      await forEach(ctx.fixture.running, async (node) => {
        const md = expectOk(
          await ctx.probe.call('instanceMetadata', { node: bare(node) }),
          `instanceMetadata(${node.name}, no providerID)`,
        );
        const known = providerIDOf(ctx, node);
        if (known !== '' && md.providerID !== known) {
          fail(`by name ${node.name} gives providerID "${md.providerID}", by providerID "${known}"`);
        }
      });
      return `${count(ctx.fixture.running.length, 'node')} (a kubelet registers nodes without a providerID)`;
    },
  },
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceMetadata of stopped nodes',
    async run(ctx) {
      await forEach(needNodes(ctx.fixture.stopped, 'stopped'), async (node) => {
        const md = expectOk(
          await ctx.probe.call('instanceMetadata', { node }),
          `instanceMetadata(${node.name}, stopped)`,
        );
        ctx.state.providerIDs.set(node.name, md.providerID);
      });
      return count(ctx.fixture.stopped.length, 'node');
    },
  },
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceMetadata of missing nodes: InstanceNotFound',
    async run(ctx) {
      await forEach(needNodes(ctx.fixture.missing, 'missing'), async (node) => {
        expectCode(
          await ctx.probe.call('instanceMetadata', { node }),
          'InstanceNotFound',
          `instanceMetadata(${node.name}, missing)`,
        );
      });
      return count(ctx.fixture.missing.length, 'node');
    },
  },
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceExists: running, stopped true; missing false',
    async run(ctx) {
      const want: Array<[Node, boolean, string]> = [
        ...ctx.fixture.running.map((n): [Node, boolean, string] => [n, true, 'running']),
        ...ctx.fixture.stopped.map((n): [Node, boolean, string] => [n, true, 'stopped']),
        ...ctx.fixture.missing.map((n): [Node, boolean, string] => [n, false, 'missing']),
      ];
      await forEach(want, async ([node, exists, state]) => {
        const got = expectOk(
          await ctx.probe.call('instanceExists', { node }),
          `instanceExists(${node.name}, ${state})`,
        );
        if (got.exists !== exists) fail(`instanceExists(${node.name}, ${state}) = ${got.exists}, expected ${exists}`);
      });
      return count(want.length, 'node');
    },
  },
  {
    group: 'instancesV2',
    capability: 'instancesV2',
    title: 'instanceShutdown: running false, stopped true',
    async run(ctx) {
      const want: Array<[Node, boolean | undefined, string]> = [
        ...ctx.fixture.running.map((n): [Node, boolean, string] => [n, false, 'running']),
        ...ctx.fixture.stopped.map((n): [Node, boolean, string] => [n, true, 'stopped']),
        ...ctx.fixture.missing.map((n): [Node, undefined, string] => [n, undefined, 'missing']),
      ];
      await forEach(want, async ([node, shutdown, state]) => {
        const outcome = await ctx.probe.call('instanceShutdown', { node });
        if (shutdown === undefined) {
          // Upstream providers answer InstanceNotFound or false for a missing instance; never true, never Internal.
          const fine =
            (outcome.kind === 'ok' && !outcome.value.shutdown) ||
            (outcome.kind === 'error' && outcome.error.code === 'InstanceNotFound');
          if (!fine)
            fail(
              `instanceShutdown(${node.name}, missing) answered ${describeOutcome(outcome)}; expected InstanceNotFound or false`,
            );
          return;
        }
        const got = expectOk(outcome, `instanceShutdown(${node.name}, ${state})`);
        if (got.shutdown !== shutdown)
          fail(`instanceShutdown(${node.name}, ${state}) = ${got.shutdown}, expected ${shutdown}`);
      });
      return count(want.length, 'node');
    },
  },
  {
    group: 'instances',
    capability: 'instances',
    title: 'instanceExists/ShutdownByProviderID',
    async run(ctx) {
      let n = 0;
      for (const [nodes, exists, shutdown, state] of [
        [ctx.fixture.running, true, false, 'running'],
        [ctx.fixture.stopped, true, true, 'stopped'],
        [ctx.fixture.missing, false, undefined, 'missing'],
      ] as const) {
        for (const node of nodes) {
          const providerID = providerIDOf(ctx, node);
          if (providerID === '') continue;
          n++;
          const e = expectOk(
            await ctx.probe.call('instanceExistsByProviderID', { providerID }),
            `instanceExistsByProviderID(${providerID}, ${state})`,
          );
          if (e.exists !== exists)
            fail(`instanceExistsByProviderID(${providerID}, ${state}) = ${e.exists}, expected ${exists}`);
          if (shutdown === undefined) continue;
          const s = expectOk(
            await ctx.probe.call('instanceShutdownByProviderID', { providerID }),
            `instanceShutdownByProviderID(${providerID}, ${state})`,
          );
          if (s.shutdown !== shutdown)
            fail(`instanceShutdownByProviderID(${providerID}, ${state}) = ${s.shutdown}, expected ${shutdown}`);
        }
      }
      if (n === 0) skip('no fixture node has a providerID (give them in the fixture, or declare instancesV2)');
      return `${n} provider IDs`;
    },
  },
  {
    group: 'instances',
    capability: 'instances',
    title: 'nodeAddresses, instanceID, instanceType',
    async run(ctx) {
      for (const node of ctx.fixture.running) {
        expectOk(await ctx.probe.call('nodeAddresses', { nodeName: node.name }), `nodeAddresses(${node.name})`);
        expectOk(await ctx.probe.call('instanceType', { nodeName: node.name }), `instanceType(${node.name})`);
        const id = expectOk(await ctx.probe.call('instanceID', { nodeName: node.name }), `instanceID(${node.name})`);
        if (id.instanceID === '') fail(`instanceID(${node.name}) is empty`);
        const providerID = providerIDOf(ctx, node);
        if (providerID === '') continue;
        expectOk(
          await ctx.probe.call('nodeAddressesByProviderID', { providerID }),
          `nodeAddressesByProviderID(${providerID})`,
        );
        expectOk(
          await ctx.probe.call('instanceTypeByProviderID', { providerID }),
          `instanceTypeByProviderID(${providerID})`,
        );
      }
      // Upstream's legacy existence check is InstanceID answering InstanceNotFound.
      for (const node of ctx.fixture.missing) {
        expectCode(
          await ctx.probe.call('instanceID', { nodeName: node.name }),
          'InstanceNotFound',
          `instanceID(${node.name}, missing)`,
        );
      }
      return `${ctx.fixture.running.length} running, ${ctx.fixture.missing.length} missing`;
    },
  },
];
