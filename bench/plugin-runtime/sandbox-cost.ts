// What the Wasm sandbox costs per provider call, in CPU: the devcloud plugin's InstanceMetadata (one GET to devcloud,
// as the cloud-node controller makes for every new Node) through the whole host path, against the same lookup
// written in TypeScript on the same HTTP client, and the pieces in between. devcloud runs at zero latency in a
// thread of this process, so every thread's CPU can be told apart. Rows:
//   in-process lookup   GET /instances/by-name/<name> on an Http1Pool, JSON.parse, the metadata built in TypeScript:
//                       what a provider compiled into the CCM would do (the upstream CCM's Go provider does this);
//   broker alone        the same GET as a ccm_http_bytes frame through the HttpBroker (allow-list, credentials,
//                       timeouts, framing), no plugin;
//   plugin, no HTTP     a call that answers from the plugin's config (getZone): the call's machinery alone (input
//                       into the channel, the worker's wake-up, the guest, the answer's ABI check);
//   plugin              InstanceMetadata: the call, the guest's brokered GET, its JSON;
//   signing alone       the broker's SigV4 signer on the same GET, nothing else;
//   ..., SigV4-signed   the broker and InstanceMetadata again with an AWS key in the credentials file: the host signs
//                       each request (SigV4) and a front in devcloud's thread checks the signature (its CPU counts
//                       as devcloud's).
// Per call: CPU of the main thread, of the plugin's worker thread, their sum, devcloud's thread, and wall time. Each
// row runs `--rounds` rounds of `--calls` calls (each call a different node); each figure is the best round's.
//
// Usage: npm run bench:sandbox-cost -- [--calls=1000] [--rounds=5] [--out=bench/results/sandbox-cost.json]
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { silentLogger } from '../../host/src/log/logger.ts';
import { Http1Pool } from '../../host/src/net/http1/pool.ts';
import type { Node } from '../../host/src/abi/index.ts';
import { CredentialStore } from '../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker } from '../../host/src/plugin/broker/http-broker.ts';
import { buildFrame, splitFrame } from '../../host/src/plugin/broker/http-frame.ts';
import { SigV4Signer } from '../../host/src/plugin/broker/sigv4-signer.ts';
import { DEVCLOUD_THREAD, type PluginOnDevcloud, pluginOnDevcloud } from '../lib/plugin-on-devcloud.ts';
import { formatTable } from '../../lab/measure/index.ts';
import { ownThreadCpuUs, threadCpuNs } from '../lib/thread-cpu.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    out: { type: 'string', default: new URL('../results/sandbox-cost.json', import.meta.url).pathname },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
for (const [name, v] of [
  ['calls', CALLS],
  ['rounds', ROUNDS],
] as const) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name}: want a positive integer, got ${values[name]}`);
}
const PLUGIN_THREAD = 'wasm-ccm-plugin';

interface Row {
  case: string;
  main_cpu_us: number;
  plugin_cpu_us: number;
  total_cpu_us: number;
  devcloud_cpu_us: number;
  wall_us: number;
}

async function measure(name: string, call: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < Math.min(CALLS, 200); i++) await call(i);
  const best = { main: Infinity, plugin: Infinity, cloud: Infinity, wall: Infinity };
  for (let round = 0; round < ROUNDS; round++) {
    const main0 = ownThreadCpuUs();
    const plugin0 = threadCpuNs(PLUGIN_THREAD);
    const cloud0 = threadCpuNs(DEVCLOUD_THREAD);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await call(i);
    best.wall = Math.min(best.wall, ((performance.now() - t0) * 1000) / CALLS);
    best.main = Math.min(best.main, (ownThreadCpuUs() - main0) / CALLS);
    best.plugin = Math.min(best.plugin, (threadCpuNs(PLUGIN_THREAD) - plugin0) / 1000 / CALLS);
    best.cloud = Math.min(best.cloud, (threadCpuNs(DEVCLOUD_THREAD) - cloud0) / 1000 / CALLS);
  }
  const row = {
    case: name,
    main_cpu_us: Math.round(best.main),
    plugin_cpu_us: Math.round(best.plugin),
    total_cpu_us: Math.round(best.main + best.plugin),
    devcloud_cpu_us: Math.round(best.cloud),
    wall_us: Math.round(best.wall),
  };
  console.log(`  ${name}: ${row.total_cpu_us} us CPU (main ${row.main_cpu_us}, plugin ${row.plugin_cpu_us})`);
  return row;
}

const loadBefore = loadavg()[0];
let rows: Row[];
let pluginPath: string;
{
  const setup = await pluginOnDevcloud(CALLS);
  pluginPath = setup.pluginPath;
  try {
    const nodes = nodesOf(setup);
    const pool = new Http1Pool(setup.cloud.url);
    const headers = { authorization: `Bearer ${setup.token}`, accept: 'application/json' };
    const inProcess = async (i: number): Promise<unknown> => {
      const res = await pool.exchange({ method: 'GET', path: byName(nodes, i), headers });
      if (res.statusCode !== 200) throw new Error(`devcloud answered ${res.statusCode}`);
      const inst = JSON.parse(Buffer.concat(res.chunks).toString('utf8')) as Record<string, unknown>;
      return { providerID: `devcloud://${String(inst.id)}`, instanceType: inst.type, addresses: inst.addresses };
    };
    rows = [
      await measure('in-process lookup (TypeScript, same HTTP client)', inProcess),
      ...(await measureBrokerAndPlugin(setup, nodes, '')),
    ];
    await pool.close();
  } finally {
    await setup.stop();
  }
}
// The same calls with an AWS key in the credentials file: the host signs every request (SigV4).
{
  const setup = await pluginOnDevcloud(CALLS, pluginPath, { sigv4: true });
  try {
    const nodes = nodesOf(setup);
    const signer = new SigV4Signer(
      { accessKeyId: 'AKIAEXAMPLE0000000001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      { region: 'dc-east-1', service: 'devcloud' },
    );
    const urls = nodes.map((_, i) => new URL(`${setup.apiUrl}${byName(nodes, i)}`));
    rows.push(
      await measure('SigV4 signing alone (the broker signer, one GET)', (i) =>
        signer.sign({ method: 'GET', url: urls[i]!, headers: {} }),
      ),
      ...(await measureBrokerAndPlugin(setup, nodes, ', SigV4-signed')),
    );
  } finally {
    await setup.stop();
  }
}

// Nodes as a kubelet registers them, before the CCM has set a providerID: looked up by name.
function nodesOf(setup: PluginOnDevcloud): Node[] {
  return setup.cloud.instances.map((inst) => ({
    name: inst.name,
    uid: randomUUID(),
    providerID: '',
    labels: { 'kubernetes.io/hostname': inst.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
    annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    addresses: [{ type: 'Hostname', address: inst.name }],
  }));
}

// devcloud serves its API under /v1.
function byName(nodes: Node[], i: number): string {
  return `/v1/instances/by-name/${encodeURIComponent(nodes[i]!.name)}`;
}

// The broker alone (allow-list, credentials, timeouts, framing; no plugin), then a plugin call without HTTP and
// InstanceMetadata through the plugin, with the setup's credential (the bearer token, or an AWS key that signs).
async function measureBrokerAndPlugin(setup: PluginOnDevcloud, nodes: Node[], variant: string): Promise<Row[]> {
  const credentials = await CredentialStore.open({
    file: setup.credentialsFile,
    reloadIntervalMs: 0,
    logger: silentLogger,
  });
  const broker = new HttpBroker({
    allowList: new HostAllowList([new URL(setup.apiUrl).host]),
    credentials,
    maxResponseBytes: 16 << 20,
    defaultTimeoutMs: 10_000,
    maxTimeoutMs: 60_000,
    maxRedirects: 3,
  });
  const frames = nodes.map((_, i) =>
    buildFrame(JSON.stringify({ method: 'GET', url: `${setup.apiUrl}${byName(nodes, i)}`, headers: {}, timeoutMs: 0 })),
  );
  const call = new AbortController().signal;
  const brokered = async (i: number): Promise<unknown> => {
    const answer = splitFrame(await broker.handleBytes(frames[i]!, call));
    const head = typeof answer === 'string' ? answer : Buffer.from(answer.head).toString('utf8');
    // 200 is the only answer measured.
    if (!head.startsWith('{"status":200')) throw new Error(`the broker answered ${head.slice(0, 200)}`);
    return answer;
  };
  const loaded = setup.plugin;
  try {
    return [
      await measure(`broker alone (one ccm_http_bytes GET${variant})`, brokered),
      ...(variant === '' ? [await measure('plugin call, no HTTP (getZone)', () => loaded.call('getZone', {}))] : []),
      await measure(`plugin call: InstanceMetadata (one brokered GET${variant})`, (i) =>
        loaded.call('instanceMetadata', { node: nodes[i]! }),
      ),
    ];
  } finally {
    broker.close();
    credentials.close();
  }
}

const inProcessRow = rows[0]!;
const pluginRow = rows.find((r) => r.case === 'plugin call: InstanceMetadata (one brokered GET)')!;
const signedRow = rows.at(-1)!;
console.log(
  `\n${formatTable(
    ['per call', 'main CPU us', 'plugin CPU us', 'total CPU us', 'devcloud CPU us', 'wall us'],
    rows.map((r) => [r.case, r.main_cpu_us, r.plugin_cpu_us, r.total_cpu_us, r.devcloud_cpu_us, r.wall_us].map(String)),
  )}`,
);
const sandboxUs = pluginRow.total_cpu_us - inProcessRow.total_cpu_us;
const sigv4Us = signedRow.total_cpu_us - pluginRow.total_cpu_us;
console.log(
  `\nthe sandbox's CPU per InstanceMetadata: ${sandboxUs} us (${pluginRow.total_cpu_us} vs ${inProcessRow.total_cpu_us})`,
);
console.log(
  `InstanceMetadata with SigV4 signing: ${signedRow.total_cpu_us} us CPU (signing adds ${sigv4Us} us per call)`,
);
writeFileSync(
  values.out,
  `${JSON.stringify(
    {
      benchmark: 'sandbox-cost',
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version },
      load_average_1m: { before: loadBefore, after: loadavg()[0] },
      calls: CALLS,
      rounds: ROUNDS,
      rows,
      sandbox_cpu_us_per_instance_metadata: sandboxUs,
      sigv4_instance_metadata_cpu_us: signedRow.total_cpu_us,
      sigv4_signing_cpu_us_per_call: sigv4Us,
    },
    null,
    2,
  )}\n`,
);
console.log(`wrote ${values.out}`);
process.exit(0);
