// wasm-ccm against the upstream cloud-controller-manager (k8s.io/cloud-provider v0.36.3 with the Go devcloud provider
// of lab/peers/devcloud-go; `npm run build:peer`), each on its own fresh control plane and devcloud, with the same flags:
//   1. node-init: N kubelet-shaped Nodes (tainted, Ready) registered at once; seconds until every taint is gone, and
//      the p50/p99 taint-removal latency (from a node's ADDED event to its first version without the taint, both
//      seen by the benchmark's own watch);
//   2. service-lb: M LoadBalancer Services at once with devcloud at L ms per call; seconds until every one has an
//      external IP, and until the service controller's 2M Events are written too (both CCMs write them through the
//      controller's own client, whose rate limit the Service patches share, so they trail the ingresses);
//   3. steady: Nodes up to S_N (initialized, excluded from LBs so no LB work) and ClusterIP Services up to S_S in the
//      caches; resident memory after the CCM has settled.
// CPU seconds of the CCM process are measured per phase. Results: bench/results/compare.{json,md,svg}.
// Usage: npm run bench:compare -- [--nodes=1000] [--services=1000] [--latency-ms=50] [--steady-nodes=5000]
//   [--steady-services=10000] [--quick] [--qps=200] [--burst=400] [--concurrent-service-syncs=10]
//   [--rounds=1]   (N rounds, the two implementations alternating which goes first; each number is the median of its
//                  N measurements, the raw ones are kept in the JSON: on a shared machine one run swings by +-15%)
//   [--only=wasm_ccm|upstream]   (one implementation, raw numbers printed, no report written)
//   [--cpu-prof=DIR]   (wasm-ccm's threads write V8 CPU profiles to DIR)
//   [--ccm-build=dist|source]   (default dist: `npm run build` first, then run dist/host/src/main.js as the image does)
//   [--ccm-node-args='...']   (options for wasm-ccm's Node, space-separated; default the image's, lab/ccm/image.ts)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { CCM_MAIN, CCM_MAIN_COMPILED, IMAGE_ENV, IMAGE_NODE_ARGS } from '../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { createNodes, createServices, fillSteady, names, sleep, warmUp } from '../lib/cluster-load.ts';
import { type Impl, keepLogOf, type StartedCCM, startCCM, benchFlags } from '../lib/start-ccm.ts';
import { ServiceLbWatch } from '../lib/service-lb-watch.ts';
import {
  cpuSeconds,
  memoryStats,
  threadCpuDelta,
  threadCpuSeconds,
  percentile,
  formatTable,
  tokensLost,
} from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string' },
    services: { type: 'string' },
    'latency-ms': { type: 'string', default: '50' },
    'steady-nodes': { type: 'string' },
    'steady-services': { type: 'string' },
    qps: { type: 'string', default: '200' },
    burst: { type: 'string', default: '400' },
    'concurrent-service-syncs': { type: 'string', default: '10' },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'ccm-build': { type: 'string', default: 'dist' },
    'ccm-node-args': { type: 'string', default: IMAGE_NODE_ARGS.join(' ') },
    out: { type: 'string', default: new URL('../results/compare', import.meta.url).pathname },
  },
});

function int(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name}: expected a non-negative integer, got "${raw}"`);
  return n;
}

const quick = values.quick;
const NODES = int('nodes', values.nodes, quick ? 100 : 1000);
const SERVICES = int('services', values.services, quick ? 100 : 1000);
const LATENCY_MS = int('latency-ms', values['latency-ms'], 50);
const STEADY_NODES = int('steady-nodes', values['steady-nodes'], quick ? 500 : 5000);
const STEADY_SERVICES = int('steady-services', values['steady-services'], quick ? 1000 : 10000);
const QPS = int('qps', values.qps, 200);
const BURST = int('burst', values.burst, 400);
const SERVICE_SYNCS = int('concurrent-service-syncs', values['concurrent-service-syncs'], 10);
const ROUNDS = Math.max(1, int('rounds', values.rounds, 1));
// What ships: the image runs the compiled dist/ (no per-thread type stripping: ~9 MB less per plugin worker and
// ~50 MB less at idle than the .ts sources). --ccm-build=source measures the sources instead.
if (values['ccm-build'] !== 'dist' && values['ccm-build'] !== 'source') {
  throw new Error(`--ccm-build: want dist or source, got "${values['ccm-build']}"`);
}
const CCM_SCRIPT = values['ccm-build'] === 'dist' ? CCM_MAIN_COMPILED : CCM_MAIN;
const CCM_NODE_ARGS = values['ccm-node-args'].split(' ').filter((a) => a !== '');
const SETTLE_MS = 20_000;
const RUN_LABEL = 'bench.wasm-ccm/compare';

const FLAGS = benchFlags({ qps: QPS, burst: BURST, serviceSyncs: SERVICE_SYNCS });

const round = (v: number, digits = 1): number => Math.round(v * 10 ** digits) / 10 ** digits;

interface ImplResult {
  node_init_s: number;
  node_init_p50_s: number;
  node_init_p99_s: number;
  node_init_cpu_s: number;
  service_lb_s: number;
  service_lb_cpu_s: number;
  /** Until the burst's Events are written too (they share the client-side rate limit and trail the ingresses). */
  service_lb_events_s: number;
  service_lb_events_cpu_s: number;
  /** How many of the 2M Events were written: fewer means the CCM dropped some, and the two rows above did less work. */
  service_lb_events_written: number;
  /**
   * Tokens of the service controller's client-side rate limit lost in the burst (lab/measure/token-bucket.ts, replaying
   * the writes the watches saw): each one is 1/qps s more until the last write, whatever else the run's noise adds.
   */
  service_lb_tokens_lost: number;
  steady_rss_mb: number;
  steady_cpu_s: number;
  idle_rss_mb: number;
  total_cpu_s: number;
  load_avg: [number, number];
}

/** Phase 2: SERVICES LoadBalancer Services created at once, timed by watches until their ingresses and Events. */
async function lbBurst(admin: KubeClient, pid: number, impl: Impl, log: (m: string) => void) {
  const lbs = names('lb', SERVICES);
  const lbWatch = new ServiceLbWatch(admin);
  await lbWatch.start();
  try {
    const cpu0 = cpuSeconds(pid);
    const t1 = performance.now();
    await createServices(admin, lbs, 'LoadBalancer');
    const serviceLb = ((await lbWatch.ingressOf(lbs, 900_000, impl)) - t1) / 1000;
    const serviceLbCpu = cpuSeconds(pid) - cpu0;
    log(`service-lb ${round(serviceLb, 2)} s`);
    // Ensuring and Ensured for each Service. Fewer if the CCM dropped some: then the time is when the last one was
    // seen, and the CPU also holds the wait for their number to settle.
    const events = await lbWatch.events(2 * SERVICES, 900_000, impl);
    const serviceLbEvents = (events.at - t1) / 1000;
    const serviceLbEventsCpu = cpuSeconds(pid) - cpu0;
    // Each Service's status and each Event at least: fewer seen means the replay would count lost tokens that were not.
    if (lbWatch.writes.length < events.written + SERVICES) {
      throw new Error(`${impl}: the watches saw ${lbWatch.writes.length} writes, fewer than the burst made`);
    }
    const tokensLostInBurst = tokensLost(lbWatch.writes, t1, QPS, BURST);
    return { serviceLb, serviceLbCpu, events, serviceLbEvents, serviceLbEventsCpu, tokensLostInBurst };
  } finally {
    await lbWatch.stop();
  }
}

async function run(impl: Impl): Promise<ImplResult> {
  const loadStart = loadavg()[0] ?? 0;
  const cp = await ControlPlane.start({ apiserverFlags: ['--max-requests-inflight=800'] });
  let cloud: Devcloud | undefined;
  let ccm: StartedCCM | undefined;
  try {
    cloud = await startDevcloud({ token: 'compare-token' });
    const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
    const log = (m: string): void => console.log(`  [${impl}] ${m}`);

    const started = await startCCM(impl, {
      info: cp.info,
      cloud,
      flags: FLAGS,
      name: 'compare',
      main: CCM_SCRIPT,
      nodeArgs: [
        ...CCM_NODE_ARGS,
        ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []),
      ],
    });
    ccm = started;
    const { pid } = started;

    // Warm-up: one node initialized means the controllers run (the same readiness signal for both).
    const watch = await warmUp(admin, cloud, RUN_LABEL);
    const idle = memoryStats(pid);
    const cpuStart = cpuSeconds(pid);

    // 1. node-init burst.
    const burst = names('burst', NODES);
    burst.forEach((name) => cloud!.addInstance({ name }));
    let cpu0 = cpuSeconds(pid);
    let threads0 = threadCpuSeconds(pid);
    const threadLog = (phase: string): void => {
      const now = threadCpuSeconds(pid);
      log(`${phase} CPU by thread: ${threadCpuDelta(threads0, now)}`);
      threads0 = now;
    };
    const t0 = performance.now();
    await createNodes(admin, burst, { [RUN_LABEL]: 'burst' });
    await watch.waitCleared(NODES + 1, 600_000, (n) => log(`${n - 1}/${NODES} nodes initialized`));
    const nodeInit = (Math.max(...watch.cleared.values()) - t0) / 1000;
    const nodeInitCpu = cpuSeconds(pid) - cpu0;
    // How fast the burst starts: at a QPS limit the bucket's refill is lost while a CCM consumes less than it.
    const clearedAt = [...watch.cleared.values()].map((t) => t - t0);
    const by = [1, 2, 3, 4, 6, 8, 10, 12].map((s) => `${s} s: ${clearedAt.filter((t) => t <= s * 1000).length}`);
    log(`nodes initialized by ${by.join(', ')}`);
    const latencies = burst
      .map((n) => (watch.cleared.get(n) ?? Number.NaN) - (watch.added.get(n) ?? Number.NaN))
      .sort((a, b) => a - b);
    const p50 = round(percentile(latencies, 50) / 1000, 2);
    const p99 = round(percentile(latencies, 99) / 1000, 2);
    await watch.stop();
    log(`node-init ${round(nodeInit)} s, taint removal p50 ${p50} s / p99 ${p99} s`);
    threadLog('node-init');

    // 2. LoadBalancer Services with cloud latency.
    cloud.setKnobs({ latencyMs: LATENCY_MS });
    const { serviceLb, serviceLbCpu, events, serviceLbEvents, serviceLbEventsCpu, tokensLostInBurst } = await lbBurst(
      admin,
      pid,
      impl,
      log,
    );
    log(
      `service-lb with its ${events.written} events ${round(serviceLbEvents, 2)} s, ${round(serviceLbEventsCpu, 2)} CPU s`,
    );
    log(`service-lb: ${round(tokensLostInBurst, 1)} tokens of the rate limit lost`);
    threadLog('service-lb');
    cloud.setKnobs({ latencyMs: 0 });

    // 3. Steady state: fill the caches, then let it settle.
    cpu0 = cpuSeconds(pid);
    // Already initialized (nothing for cloud-node) and not LB backends.
    await fillSteady(
      admin,
      cloud,
      RUN_LABEL,
      { nodes: STEADY_NODES, services: STEADY_SERVICES },
      { nodes: NODES, services: SERVICES },
    );
    log(`caches filled (${STEADY_NODES} nodes, ${STEADY_SERVICES} services); settling ${SETTLE_MS / 1000} s`);
    await sleep(SETTLE_MS);
    const steadyCpu = cpuSeconds(pid) - cpu0;
    threadLog('steady');
    const steady = memoryStats(pid);
    const totalCpu = cpuSeconds(pid) - cpuStart;
    log(`steady RSS ${steady.rssMb} MB, ${steady.threads} threads (idle: ${idle.rssMb} MB, ${idle.threads} threads)`);
    return {
      node_init_s: round(nodeInit),
      node_init_p50_s: p50,
      node_init_p99_s: p99,
      node_init_cpu_s: round(nodeInitCpu),
      service_lb_s: round(serviceLb, 2),
      service_lb_cpu_s: round(serviceLbCpu, 2),
      service_lb_events_s: round(serviceLbEvents, 2),
      service_lb_events_cpu_s: round(serviceLbEventsCpu, 2),
      service_lb_events_written: events.written,
      service_lb_tokens_lost: round(tokensLostInBurst, 1),
      steady_rss_mb: steady.rssMb,
      steady_cpu_s: round(steadyCpu),
      idle_rss_mb: idle.rssMb,
      total_cpu_s: round(totalCpu),
      load_avg: [round(loadStart), round(loadavg()[0] ?? 0)],
    };
  } catch (err) {
    // The control plane's directory, the log with it, goes in `finally`.
    if (ccm) console.error(`  [${impl}] the run failed; the CCM's log: ${keepLogOf(ccm, impl)}`);
    throw err;
  } finally {
    await ccm?.stop().catch(() => undefined);
    await cloud?.stop().catch(() => undefined);
    await cp.stop().catch(() => undefined);
  }
}

/** Each number the median of its rounds (the middle one, or the mean of the two middle ones); load averages of the first. */
function medianResult(measured: readonly ImplResult[]): ImplResult {
  const median = (key: keyof Omit<ImplResult, 'load_avg'>): number => {
    const sorted = measured.map((m) => m[key]).sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : round(((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2);
  };
  return {
    node_init_s: median('node_init_s'),
    node_init_p50_s: median('node_init_p50_s'),
    node_init_p99_s: median('node_init_p99_s'),
    node_init_cpu_s: median('node_init_cpu_s'),
    service_lb_s: median('service_lb_s'),
    service_lb_cpu_s: median('service_lb_cpu_s'),
    service_lb_events_s: median('service_lb_events_s'),
    service_lb_events_cpu_s: median('service_lb_events_cpu_s'),
    service_lb_events_written: median('service_lb_events_written'),
    service_lb_tokens_lost: median('service_lb_tokens_lost'),
    steady_rss_mb: median('steady_rss_mb'),
    steady_cpu_s: median('steady_cpu_s'),
    idle_rss_mb: median('idle_rss_mb'),
    total_cpu_s: median('total_cpu_s'),
    load_avg: (measured[0] as ImplResult).load_avg,
  };
}

function svg(scenarios: { name: string; ratio: number }[]): string {
  const rowH = 34;
  const left = 260;
  const width = 760;
  const max = Math.max(2, ...scenarios.map((s) => s.ratio));
  const scale = (width - left - 80) / max;
  const bars = scenarios
    .map((s, i) => {
      const y = 40 + i * rowH;
      const w = Math.max(1, s.ratio * scale);
      const color = s.ratio <= 1 ? '#2e7d32' : '#c62828';
      return (
        `<text x="${left - 8}" y="${y + 17}" text-anchor="end" font-size="13">${s.name}</text>` +
        `<rect x="${left}" y="${y + 4}" width="${w.toFixed(1)}" height="18" fill="${color}"/>` +
        `<text x="${(left + w + 6).toFixed(1)}" y="${y + 17}" font-size="13">${s.ratio.toFixed(2)}x</text>`
      );
    })
    .join('\n  ');
  const one = left + scale;
  const height = 60 + scenarios.length * rowH;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
  <text x="10" y="22" font-size="15" font-weight="bold">wasm-ccm / upstream CCM (lower is better; 1.0 = equal)</text>
  <line x1="${one.toFixed(1)}" y1="34" x2="${one.toFixed(1)}" y2="${height - 10}" stroke="#555" stroke-dasharray="4 3"/>
  ${bars}
</svg>
`;
}

async function main(): Promise<void> {
  const started = Date.now();
  if (values['ccm-build'] === 'dist') {
    console.log('building dist/ (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  }
  console.log(
    `compare: ${NODES} nodes, ${SERVICES} LB services at ${LATENCY_MS} ms, steady ${STEADY_NODES} nodes / ${STEADY_SERVICES} services`,
  );
  const rounds: Partial<Record<Impl, ImplResult>>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Impl[] = r % 2 === 0 ? ['upstream', 'wasm_ccm'] : ['wasm_ccm', 'upstream'];
    const results: Partial<Record<Impl, ImplResult>> = {};
    for (const impl of order) {
      if (values.only !== undefined && values.only !== impl) continue;
      console.log(ROUNDS > 1 ? `${impl} (round ${r + 1}/${ROUNDS}):` : `${impl}:`);
      results[impl] = await run(impl);
    }
    rounds.push(results);
  }
  const results: Partial<Record<Impl, ImplResult>> = {};
  for (const impl of ['upstream', 'wasm_ccm'] as const) {
    const measured = rounds.map((r) => r[impl]).filter((m): m is ImplResult => m !== undefined);
    if (measured.length > 0) results[impl] = medianResult(measured);
  }
  if (values.only !== undefined) {
    // One implementation alone (profiling, or a quick look): its raw numbers, no ratios and no report files.
    console.log(JSON.stringify(ROUNDS > 1 ? { median: results, rounds } : results, null, 2));
    return;
  }
  const u = results.upstream!;
  const w = results.wasm_ccm!;
  const scenario = (name: string, unit: string, key: keyof Omit<ImplResult, 'load_avg'>) => ({
    name,
    unit,
    wasm_ccm: w[key],
    upstream: u[key],
    ratio: round(w[key] / u[key], 2),
  });
  const scenarios = [
    scenario(`node-init: ${NODES} nodes burst`, 's', 'node_init_s'),
    scenario(`node-init: taint removal p50`, 's', 'node_init_p50_s'),
    scenario(`node-init: taint removal p99`, 's', 'node_init_p99_s'),
    scenario(`node-init CPU`, 'CPU s', 'node_init_cpu_s'),
    scenario(`service-lb: ${SERVICES} LBs at ${LATENCY_MS} ms`, 's', 'service_lb_s'),
    scenario(`service-lb CPU`, 'CPU s', 'service_lb_cpu_s'),
    scenario(`service-lb until its events are written`, 's', 'service_lb_events_s'),
    scenario(`service-lb CPU until its events are written`, 'CPU s', 'service_lb_events_cpu_s'),
    scenario(`service-lb: rate-limit tokens lost`, 'tokens', 'service_lb_tokens_lost'),
    scenario(`steady RSS: ${STEADY_NODES} nodes / ${STEADY_SERVICES} services`, 'MB', 'steady_rss_mb'),
    scenario(`steady: fill + ${SETTLE_MS / 1000} s settle CPU`, 'CPU s', 'steady_cpu_s'),
    scenario(`idle RSS (1 node)`, 'MB', 'idle_rss_mb'),
    scenario(`CPU, whole run`, 'CPU s', 'total_cpu_s'),
  ];
  const report = {
    benchmark: 'compare',
    date: new Date().toISOString(),
    upstream: 'k8s.io/cloud-provider v0.36.3 + lab/peers/devcloud-go devcloud provider (Go)',
    wasm_ccm: 'host/src/main.ts + plugins/devcloud (AssemblyScript/Wasm)',
    flags: FLAGS,
    wasm_ccm_process: {
      script: relative(join(import.meta.dirname, '..', '..'), CCM_SCRIPT),
      node_args: CCM_NODE_ARGS,
      env: IMAGE_ENV,
    },
    parameters: {
      nodes: NODES,
      services: SERVICES,
      latency_ms: LATENCY_MS,
      steady_nodes: STEADY_NODES,
      steady_services: STEADY_SERVICES,
    },
    machine: { cpus: availableParallelism(), node: process.version },
    load_avg: { upstream: u.load_avg, wasm_ccm: w.load_avg },
    wall_s: Math.round((Date.now() - started) / 1000),
    rounds: ROUNDS,
    scenarios,
    results,
    ...(ROUNDS > 1 ? { rounds_measured: rounds } : {}),
  };
  writeFileSync(`${values.out}.json`, `${JSON.stringify(report, null, 2)}\n`);
  const table = formatTable(
    ['scenario', 'unit', 'wasm-ccm', 'upstream', 'ratio'],
    scenarios.map((s) => [s.name, s.unit, String(s.wasm_ccm), String(s.upstream), s.ratio.toFixed(2)]),
  );
  const producedBy =
    ROUNDS > 1
      ? `\`npm run bench:compare -- --rounds=${ROUNDS}\`: each number is the median of ${ROUNDS} rounds, the ` +
        'implementations alternating which ran first (every round is in compare.json)'
      : '`npm run bench:compare`';
  const md = [
    '# wasm-ccm vs the upstream cloud-controller-manager',
    '',
    `${report.date}; ${report.machine.cpus} CPUs (shared), load average ${JSON.stringify(report.load_avg)}; each`,
    `implementation on its own fresh control plane and devcloud; flags \`${FLAGS.join(' ')}\`.`,
    `wasm-ccm runs as the image does: \`${Object.entries(IMAGE_ENV)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')} node ${[...CCM_NODE_ARGS, report.wasm_ccm_process.script].join(' ')}\`.`,
    `Ratio = wasm-ccm / upstream (lower is better for wasm-ccm). Produced by ${producedBy}.`,
    '',
    '| scenario | unit | wasm-ccm | upstream | ratio |',
    '|---|---|---|---|---|',
    ...scenarios.map((s) => `| ${s.name} | ${s.unit} | ${s.wasm_ccm} | ${s.upstream} | ${s.ratio.toFixed(2)} |`),
    '',
    '![ratios](compare.svg)',
    '',
    'Notes: CPU is user + system seconds of the CCM process (all threads) during the phase. The steady phase',
    'creates the extra Nodes (initialized, labelled out of load balancers) and ClusterIP Services, then waits;',
    'its CPU includes how each CCM reacts to thousands of Node adds while it owns the LoadBalancer Services.',
    'The machine is shared: compare ratios, not absolute numbers, and look at the load averages.',
    ...(Math.min(u.service_lb_events_written, w.service_lb_events_written) < 2 * SERVICES
      ? [
          `Events written of ${2 * SERVICES}: upstream ${u.service_lb_events_written}, wasm-ccm ` +
            `${w.service_lb_events_written} (a CCM whose event queue overflowed dropped the rest): the rows until the ` +
            'events are written compare different work.',
        ]
      : []),
    '',
  ].join('\n');
  writeFileSync(`${values.out}.md`, md);
  writeFileSync(`${values.out}.svg`, svg(scenarios));
  console.log(`\n${table}\n\nwrote ${values.out}.{json,md,svg}`);
}

await main();
