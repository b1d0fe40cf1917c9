// The OpenStack plugin's instanceMetadata through the sandbox against the real lab OpenStack (lab/clouds/openstack),
// with the host's brokered Keystone token: the host logs in once from a `keystone` credentials entry, hands the plugin
// the catalog and attaches X-Auth-Token to each of its requests. Per call: wall time, and CPU of this process split
// into the main thread (broker, HTTP client, answer checks) and the plugin's worker (the module: JSON, addresses);
// the OpenStack services run in processes of their own and are not counted. Node found by providerID (one server
// GET + one ports GET + flavor) and by name (a servers?name= list first).
//
// Usage: node bench/plugin-runtime/openstack-instance-metadata.ts [--calls=200] [--rounds=3]
//        [--out=bench/results/openstack-instance-metadata.json]
import { parseArgs } from 'node:util';
import { testNode } from '../../host/src/conformance/index.ts';
import {
  bootServer,
  createRoutedNetwork,
  createTestProject,
  startOpenStack,
} from '../../lab/clouds/openstack/index.ts';
import { formatTable, loadNow, median, writeResults } from '../../lab/measure/index.ts';
import { loadOpenStackPlugin, type OpenStackPlugin } from '../../lab/plugins/index.ts';
import { ownThreadCpuUs, threadCpuNs } from '../lib/thread-cpu.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: new URL('../results/openstack-instance-metadata.json', import.meta.url).pathname },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const PLUGIN_THREAD = 'wasm-ccm-plugin';

interface Round {
  wallMsPerCall: number;
  mainCpuUsPerCall: number;
  pluginCpuUsPerCall: number;
  requestsPerCall: number;
}

const loadBefore = loadNow();
const stack = await startOpenStack({ log: (m) => console.log(`openstack: ${m}`) });
let plugin: OpenStackPlugin | undefined;
try {
  const project = await createTestProject(stack.adminClient(), 'bench-metadata');
  const network = await createRoutedNetwork(project.client, {
    name: 'bench-metadata',
    cidr: '192.168.91.0/24',
    externalNetworkId: stack.resources.external.networkId,
  });
  const server = await bootServer(project.client, {
    name: 'bench-node',
    flavorId: stack.resources.flavor.id,
    imageId: stack.resources.image.id,
    networkId: network.networkId,
  });
  const { authUrl, username, password, projectName } = project.credentials;
  plugin = await loadOpenStackPlugin({
    cloudConfig: '[Global]\nregion = RegionOne\n',
    keystone: { authUrl, username, password, projectName, region: stack.region },
  });
  const nodes = {
    'by providerID': testNode({ name: 'bench-node', providerID: `openstack:///${server.id}` }),
    'by name': testNode({ name: 'bench-node' }),
  };
  const results: Record<string, Round[]> = { 'by providerID': [], 'by name': [] };
  // Warm: the login, the instance, V8's code for both paths.
  for (const node of Object.values(nodes)) for (let i = 0; i < 20; i++) await plugin.call('instanceMetadata', { node });
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, node] of Object.entries(nodes)) results[name]!.push(await measure(plugin, node));
  }
  const rows = Object.entries(results).map(([name, rounds]) => [
    name,
    fixed(median(rounds.map((r) => r.wallMsPerCall))),
    fixed(median(rounds.map((r) => r.mainCpuUsPerCall))),
    fixed(median(rounds.map((r) => r.pluginCpuUsPerCall))),
    String(rounds[0]!.requestsPerCall),
  ]);
  console.log(
    formatTable(
      ['instanceMetadata', 'wall ms/call', 'main thread CPU us/call', 'plugin CPU us/call', 'requests'],
      rows,
    ),
  );
  writeResults(values.out, 'openstack-instance-metadata', loadBefore, {
    calls_per_round: CALLS,
    rounds: ROUNDS,
    module: 'plugins/openstack/build/openstack.wasm',
    results: Object.fromEntries(
      Object.entries(results).map(([name, rounds]) => [
        name,
        {
          wall_ms_per_call: median(rounds.map((r) => r.wallMsPerCall)),
          main_cpu_us_per_call: median(rounds.map((r) => r.mainCpuUsPerCall)),
          plugin_cpu_us_per_call: median(rounds.map((r) => r.pluginCpuUsPerCall)),
          requests_per_call: rounds[0]!.requestsPerCall,
          rounds,
        },
      ]),
    ),
  });
} finally {
  await plugin?.close();
  await stack.stop();
}

async function measure(plugin: OpenStackPlugin, node: ReturnType<typeof testNode>): Promise<Round> {
  const requestsBefore = plugin.requests.length;
  const main0 = ownThreadCpuUs();
  const worker0 = threadCpuNs(PLUGIN_THREAD);
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await plugin.call('instanceMetadata', { node });
  const wallMs = performance.now() - started;
  return {
    wallMsPerCall: wallMs / CALLS,
    mainCpuUsPerCall: (ownThreadCpuUs() - main0) / CALLS,
    pluginCpuUsPerCall: (threadCpuNs(PLUGIN_THREAD) - worker0) / 1000 / CALLS,
    requestsPerCall: (plugin.requests.length - requestsBefore) / CALLS,
  };
}

function fixed(n: number): string {
  return n.toFixed(1);
}
