// Node initialization at scale: N Nodes registered at once as kubelets with --cloud-provider=external register them
// (tainted, Ready, hostname address), each backed by a devcloud instance; the wasm-ccm process (real child process,
// manifest RBAC, devcloud plugin) initializes them. Per run: seconds until every node lost the taint, p50/p99
// taint-removal latency (ADDED -> first event without the taint, seen by an outside watch), CCM RSS and CPU, and a
// profile from the CCM's own /metrics (requests per verb, rate-limiter wait, plugin call time).
// Usage: npm run bench:node-init -- [--nodes=1000] [--concurrency=10 (extra labelled row; 0 = none)] [--quick]
//   [--rows=defaults,qps200,qps200-syncs10]
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { HttpMethod } from '../../host/src/kube/client/http-method.ts';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { CCMProcess, DEVCLOUD_PLUGIN, devcloudPluginArgs, UNINITIALIZED_TAINT } from '../../lab/ccm/index.ts';
import {
  ControlPlane,
  mintIdentity,
  adminKubeConfig,
  applyManifests,
  ccmIdentity,
  loadManifests,
} from '../../lab/controlplane/index.ts';
import { freePort } from '../../lab/process/index.ts';
import { httpsGetText } from '../lib/https-get.ts';
import { NodeInitWatch } from '../lib/node-init-watch.ts';
import { createNodes } from '../lib/cluster-load.ts';
import {
  cpuSeconds,
  findPid,
  memoryStats,
  parsePromText,
  sumBy,
  sumOf,
  percentile,
  formatTable,
} from '../../lab/measure/index.ts';

const RESULTS = new URL('../results/node-init.json', import.meta.url);
const RUN_LABEL = 'bench.wasm-ccm/run';
const ZONES = ['dc-east-1a', 'dc-east-1b', 'dc-east-1c'];

interface Row {
  label: string;
  qps: number;
  burst: number;
  concurrency: number;
}

interface RunResult {
  label: string;
  qps: number;
  burst: number;
  concurrent_node_syncs: number;
  total_s: number;
  create_s: number;
  p50_s: number;
  p99_s: number;
  max_s: number;
  rss_mb: number;
  peak_rss_mb: number;
  /** RSS once the CCM was ready, before any node: what the nodes added is rss_mb minus this. */
  rss_idle_mb: number;
  ccm_cpu_s: number;
  apiserver_cpu_s: number | null;
  profile: {
    requests_by_verb: Record<string, number>;
    requests_per_node: number;
    rate_limiter_wait_s: number;
    request_time_s: number;
    plugin_calls: number;
    plugin_call_ms_avg: number;
    events_created: number;
  };
  ccm_exit_code: number | null;
  leadership_lost: boolean;
  /** 1-minute load average at the start and end of the run: other work on the machine skews the numbers. */
  load_avg: [number, number];
}

function flag(name: string): string | undefined {
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (hit === undefined) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : 'true';
}

function positiveInt(name: string, fallback: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name}: expected a non-negative integer, got "${raw}"`);
  return n;
}

const quick = flag('quick') === 'true';
const NODES = positiveInt('nodes', quick ? 100 : 1000);
const EXTRA_CONCURRENCY = positiveInt('concurrency', 10);
const ALL_ROWS: Row[] = [
  { label: 'defaults', qps: 20, burst: 30, concurrency: 1 },
  { label: 'qps200', qps: 200, burst: 400, concurrency: 1 },
  ...(EXTRA_CONCURRENCY > 1
    ? [{ label: `qps200-syncs${EXTRA_CONCURRENCY}`, qps: 200, burst: 400, concurrency: EXTRA_CONCURRENCY }]
    : []),
];
// --rows=qps200,... runs only those (for profiling one configuration).
const ONLY = flag('rows')?.split(',');
const ROWS = ONLY ? ALL_ROWS.filter((r) => ONLY.includes(r.label)) : ALL_ROWS;
if (ROWS.length === 0) throw new Error(`--rows: none of ${ALL_ROWS.map((r) => r.label).join(', ')}`);

const seconds = (ms: number): number => Math.round(ms) / 1000;

async function runOnce(
  row: Row,
  index: number,
  env: { cp: ControlPlane; cloud: Devcloud; admin: KubeClient; token: string; scraperToken: string },
): Promise<RunResult> {
  const { cp, cloud, admin } = env;
  const runId = `r${index}`;
  const names = Array.from({ length: NODES }, (_, i) => `bench-${runId}-${String(i).padStart(5, '0')}`);
  names.forEach((name, i) => cloud.addInstance({ name, zone: ZONES[i % ZONES.length] }));

  const loadAtStart = loadavg()[0] ?? 0;
  const port = await freePort();
  const ccm = new CCMProcess({
    info: cp.info,
    token: env.token,
    args: [
      ...devcloudPluginArgs(cp.info.dir, cloud, runId),
      '--controllers=cloud-node,cloud-node-lifecycle',
      `--kube-api-qps=${row.qps}`,
      `--kube-api-burst=${row.burst}`,
      `--concurrent-node-syncs=${row.concurrency}`,
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
    ],
  });
  await ccm.ready(60_000);
  const pid = ccm.process.pid;
  if (pid === undefined) throw new Error('the CCM process has no pid');
  const apiserverPid = findPid(['kube-apiserver', cp.info.dir]);
  const idle = memoryStats(pid);

  const watch = new NodeInitWatch(admin, `${RUN_LABEL}=${runId}`, UNINITIALIZED_TAINT.key);
  await watch.start();
  const cpu0 = cpuSeconds(pid);
  const apiCpu0 = apiserverPid ? cpuSeconds(apiserverPid) : 0;
  const t0 = performance.now();
  await createNodes(admin, names, { [RUN_LABEL]: runId });
  const createdMs = performance.now() - t0;
  // Each node costs the CCM about four requests; allow three times the QPS-bound time plus slack.
  const timeoutMs = ((NODES * 4) / row.qps) * 3_000 + 120_000;
  await watch.waitCleared(NODES, timeoutMs, (n) => console.log(`  [${row.label}] ${n}/${NODES} initialized`));
  const lastMs = Math.max(...watch.cleared.values());
  const latencies = names
    .map((n) => ((watch.cleared.get(n) as number) - (watch.added.get(n) as number)) / 1000)
    .sort((a, b) => a - b);

  const memory = memoryStats(pid);
  const ccmCpu = cpuSeconds(pid) - cpu0;
  const apiCpu = apiserverPid ? cpuSeconds(apiserverPid) - apiCpu0 : null;
  const metrics = parsePromText(await httpsGetText(`https://127.0.0.1:${port}/metrics`, env.scraperToken));
  await watch.stop();
  const exitCode = await ccm.stop();
  const lost = ccm.logs().some((r) => r.msg === 'leaderelection lost');

  const requestsByVerb = sumBy(metrics, 'rest_client_requests_total', 'method');
  const pluginCalls = sumOf(metrics, 'wasm_ccm_plugin_call_duration_seconds_count', { method: 'instanceMetadata' });
  const pluginSeconds = sumOf(metrics, 'wasm_ccm_plugin_call_duration_seconds_sum', { method: 'instanceMetadata' });
  const totalRequests = Object.values(requestsByVerb).reduce((a, b) => a + b, 0);

  await cleanup(admin, runId);
  const round3 = (v: number): number => Math.round(v * 1000) / 1000;
  return {
    label: row.label,
    qps: row.qps,
    burst: row.burst,
    concurrent_node_syncs: row.concurrency,
    total_s: seconds(lastMs - t0),
    create_s: seconds(createdMs),
    p50_s: round3(percentile(latencies, 50)),
    p99_s: round3(percentile(latencies, 99)),
    max_s: round3(latencies.at(-1) ?? Number.NaN),
    rss_mb: memory.rssMb,
    peak_rss_mb: memory.peakMb,
    rss_idle_mb: idle.rssMb,
    ccm_cpu_s: Math.round(ccmCpu * 10) / 10,
    apiserver_cpu_s: apiCpu === null ? null : Math.round(apiCpu * 10) / 10,
    profile: {
      requests_by_verb: requestsByVerb,
      requests_per_node: Math.round((totalRequests / NODES) * 100) / 100,
      rate_limiter_wait_s: round3(sumOf(metrics, 'rest_client_rate_limiter_duration_seconds_sum')),
      request_time_s: round3(sumOf(metrics, 'rest_client_request_duration_seconds_sum')),
      plugin_calls: pluginCalls,
      plugin_call_ms_avg: pluginCalls > 0 ? round3((pluginSeconds / pluginCalls) * 1000) : 0,
      events_created: requestsByVerb.POST ?? 0,
    },
    ccm_exit_code: exitCode,
    leadership_lost: lost,
    load_avg: [Math.round(loadAtStart * 10) / 10, Math.round((loadavg()[0] ?? 0) * 10) / 10],
  };
}

/** Deletes the run's Nodes and the events about them, so the next run starts from the same apiserver state. */
async function cleanup(admin: KubeClient, runId: string): Promise<void> {
  const selector = `${RUN_LABEL}=${runId}`;
  await admin.request({ method: HttpMethod.DELETE, path: '/api/v1/nodes', query: { labelSelector: selector } });
  await admin.request({ method: HttpMethod.DELETE, path: '/api/v1/namespaces/default/events' });
  for (let i = 0; i < 120; i++) {
    const left = await admin.request<{ items: unknown[] }>({
      path: '/api/v1/nodes',
      query: { labelSelector: selector, limit: 1 },
    });
    if (left.items.length === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`nodes of run ${runId} were not deleted within a minute`);
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`node-init: ${NODES} nodes, rows: ${ROWS.map((r) => r.label).join(' | ')}`);
  const cp = await ControlPlane.start();
  let cloud: Devcloud | undefined;
  try {
    const adminConfig = adminKubeConfig(cp.info);
    await applyManifests(adminConfig, loadManifests('rbac.yaml'));
    const { token } = await ccmIdentity(cp.info, adminConfig);
    const scraper = await mintIdentity(cp.info, adminConfig, {
      name: 'bench-scraper',
      clusterRole: 'wasm-ccm:metrics-reader',
    });
    cloud = await startDevcloud();
    // The benchmark's own client must never be the bottleneck.
    const admin = new KubeClient(adminConfig, { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
    const version = await admin.request<{ gitVersion: string }>({ path: '/version' });

    const runs: RunResult[] = [];
    for (const [i, row] of ROWS.entries()) {
      console.log(
        `run ${i + 1}/${ROWS.length}: ${row.label} (qps ${row.qps}, burst ${row.burst}, ${row.concurrency} syncs)`,
      );
      const result = await runOnce(row, i, { cp, cloud, admin, token, scraperToken: scraper.token });
      console.log(`  done in ${result.total_s} s`);
      runs.push(result);
    }

    const report = {
      benchmark: 'node-init',
      date: new Date().toISOString(),
      nodes: NODES,
      plugin: 'devcloud',
      plugin_sha256: createHash('sha256').update(readFileSync(DEVCLOUD_PLUGIN)).digest('hex'),
      controllers: 'cloud-node,cloud-node-lifecycle',
      kube_apiserver: `${version.gitVersion} (default --max-requests-inflight 400, --max-mutating-requests-inflight 200)`,
      node_shape: 'kubelet registration: uninitialized taint, Ready=True, Hostname address; created 50 at a time',
      latency: 'per node: ADDED watch event -> first watch event without the taint (outside watch)',
      machine: { cpus: availableParallelism(), node: process.version },
      wall_s: Math.round((Date.now() - started) / 1000),
      runs,
    };
    writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);

    console.log(
      `\n${formatTable(
        [
          'run',
          'qps/burst',
          'syncs',
          'total s',
          'p50 s',
          'p99 s',
          'req/node',
          'limiter wait s',
          'plugin ms',
          'CCM CPU s',
          'apiserver CPU s',
          'RSS MB (idle)',
        ],
        runs.map((r) => [
          r.label,
          `${r.qps}/${r.burst}`,
          String(r.concurrent_node_syncs),
          r.total_s.toFixed(1),
          r.p50_s.toFixed(2),
          r.p99_s.toFixed(2),
          r.profile.requests_per_node.toFixed(2),
          r.profile.rate_limiter_wait_s.toFixed(1),
          r.profile.plugin_call_ms_avg.toFixed(2),
          r.ccm_cpu_s.toFixed(1),
          r.apiserver_cpu_s === null ? '-' : r.apiserver_cpu_s.toFixed(1),
          `${r.rss_mb.toFixed(0)} (${r.rss_idle_mb.toFixed(0)})`,
        ]),
      )}\n\n${NODES} nodes, plugin devcloud; wrote ${RESULTS.pathname}`,
    );
    for (const r of runs) {
      if (r.ccm_exit_code !== 0 || r.leadership_lost) {
        throw new Error(`run "${r.label}": CCM exit code ${r.ccm_exit_code}, leadership lost: ${r.leadership_lost}`);
      }
    }
  } finally {
    await cloud?.stop();
    await cp.stop();
  }
}

await main();
