// Where wasm-ccm's resident memory goes through the phases of bench:compare, one CCM on a fresh control plane and
// devcloud, run as the image runs it (dist/, IMAGE_NODE_ARGS, IMAGE_ENV): after each phase it prints the RSS, the
// threads, /proc/<pid>/smaps by kind of mapping (bench/lib/smaps.ts) and the main thread's V8 heap (a diagnostic
// report: heap used and committed, external and malloc'd memory).
//   idle        one initialized Node;
//   node-init   `--nodes` Nodes registered at once, all initialized;
//   service-lb  `--services` LoadBalancer Services at once, devcloud at `--latency-ms` per call, all with an IP;
//   shrunk      (with --shrink-wait) once the plugin pool is back to its floor (the idle thread count);
//   steady      Nodes up to `--steady-nodes` (excluded from LBs) and ClusterIP Services up to `--steady-services`,
//               then `--settle` seconds: the number bench:compare reports as steady RSS.
// Usage: node bench/upstream/rss-phases.ts [--nodes=1000] [--services=1000] [--latency-ms=50] [--steady-nodes=5000]
//   [--steady-services=10000] [--settle=20] [--shrink-wait] [--env=NAME=VALUE ...] [--node-args='...']
//   [--no-image-env] [--top=12] [--heap-snapshot=DIR] (a heap snapshot of the main thread at steady state)
//   [--ccm-build=dist|source] [--dump-smaps=DIR] (a copy of /proc/<pid>/smaps at each phase)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { CCM_MAIN, CCM_MAIN_COMPILED, IMAGE_ENV, IMAGE_NODE_ARGS, imageEnvProblem } from '../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { heapSnapshotNodeArgs, takeHeapSnapshot } from '../lib/heap-snapshot.ts';
import { createNodes, createServices, fillSteady, names, sleep, waitForIngress, warmUp } from '../lib/cluster-load.ts';
import { cpuSeconds, memoryStats } from '../../lab/measure/index.ts';
import { formatBreakdown, formatTopRegions, smapsBreakdown } from '../lib/smaps.ts';
import { startCCM, benchFlags } from '../lib/start-ccm.ts';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    services: { type: 'string', default: '1000' },
    'latency-ms': { type: 'string', default: '50' },
    'steady-nodes': { type: 'string', default: '5000' },
    'steady-services': { type: 'string', default: '10000' },
    settle: { type: 'string', default: '20' },
    'shrink-wait': { type: 'boolean', default: false },
    env: { type: 'string', multiple: true },
    'no-image-env': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: IMAGE_NODE_ARGS.join(' ') },
    top: { type: 'string', default: '12' },
    'heap-snapshot': { type: 'string' },
    'dump-smaps': { type: 'string' },
    'ccm-build': { type: 'string', default: 'dist' },
  },
});

const NODES = Number(values.nodes);
const SERVICES = Number(values.services);
const LATENCY_MS = Number(values['latency-ms']);
const STEADY_NODES = Number(values['steady-nodes']);
const STEADY_SERVICES = Number(values['steady-services']);
const SETTLE_MS = Number(values.settle) * 1000;
const TOP = Number(values.top);
const RUN_LABEL = 'bench.wasm-ccm/rss-phases';
const FLAGS = benchFlags();
const env: Record<string, string> = values['no-image-env'] ? {} : { ...IMAGE_ENV };
const envProblem = values['no-image-env'] ? undefined : imageEnvProblem();
if (envProblem) throw new Error(envProblem);
for (const pair of values.env ?? []) {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new Error(`--env: want NAME=VALUE, got "${pair}"`);
  env[pair.slice(0, eq)] = pair.slice(eq + 1);
}

interface HeapReport {
  usedMemory: number;
  totalCommittedMemory: number;
  externalMemory: number;
  mallocedMemory: number;
  heapSpaces: Record<string, { committedMemory: number; used: number }>;
}

/** Signals the CCM for a diagnostic report (--report-on-signal) and returns its main-thread heap part. */
async function heapReport(pid: number, dir: string): Promise<(HeapReport & { workers: HeapReport[] }) | undefined> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGPWR');
  for (let i = 0; i < 100; i++) {
    await sleep(200);
    const fresh = readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.json'));
    if (fresh.length === 0) continue;
    try {
      const report = JSON.parse(readFileSync(join(dir, fresh[0] as string), 'utf8')) as {
        javascriptHeap: HeapReport;
        workers?: { javascriptHeap: HeapReport }[];
      };
      return { ...report.javascriptHeap, workers: (report.workers ?? []).map((w) => w.javascriptHeap) };
    } catch {
      // still being written
    }
  }
  return undefined;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

async function phase(name: string, pid: number, reportDir: string): Promise<void> {
  const mem = memoryStats(pid);
  const smaps = smapsBreakdown(pid);
  const dump = values['dump-smaps'];
  if (dump) {
    mkdirSync(dump, { recursive: true });
    writeFileSync(join(dump, `${name.split(' ')[0]}.smaps`), readFileSync(`/proc/${pid}/smaps`));
  }
  const heap = await heapReport(pid, reportDir);
  console.log(`${name}: RSS ${mem.rssMb} MB (peak ${mem.peakMb}), ${mem.threads} threads, CPU ${cpuSeconds(pid)} s`);
  console.log(`  smaps ${formatBreakdown(smaps)}`);
  if (heap) {
    const spaces = Object.entries(heap.heapSpaces)
      .filter(([, s]) => s.committedMemory > 0)
      .map(([n, s]) => `${n.replace('_space', '')} ${mb(s.used)}/${mb(s.committedMemory)}`)
      .join(', ');
    console.log(
      `  main V8 heap: used ${mb(heap.usedMemory)} MB, committed ${mb(heap.totalCommittedMemory)} MB, ` +
        `external ${mb(heap.externalMemory)} MB, malloced ${mb(heap.mallocedMemory)} MB; used/committed: ${spaces}`,
    );
  }
  if (heap && heap.workers.length > 0) {
    const each = heap.workers.map((w) => `${mb(w.usedMemory)}/${mb(w.totalCommittedMemory)}`).join(', ');
    const total = heap.workers.reduce((sum, w) => sum + w.totalCommittedMemory, 0);
    console.log(`  worker V8 heaps (used/committed MB): ${each}; committed in all ${mb(total)} MB`);
  }
  if (TOP > 0) console.log(formatTopRegions(smaps, TOP));
}

if (values['ccm-build'] === 'dist') execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
const cp = await ControlPlane.start({ apiserverFlags: ['--max-requests-inflight=800'] });
const cloud = await startDevcloud({ token: 'rss-phases-token' });
const reportDir = join(cp.info.dir, 'reports');
mkdirSync(reportDir, { recursive: true });
const snapshotDir = values['heap-snapshot'];
const nodeArgs = [
  ...values['node-args'].split(' ').filter((a) => a !== ''),
  ...(snapshotDir ? heapSnapshotNodeArgs(snapshotDir) : []),
];
console.log(`wasm-ccm: node ${nodeArgs.join(' ')}; env ${JSON.stringify(env)}`);
// Through NODE_OPTIONS: new Worker() refuses report options in the execArgv it inherits.
const reportOptions = `--report-on-signal --report-signal=SIGPWR --report-directory=${reportDir} --report-exclude-env`;
const ccmEnv = { ...env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${reportOptions}`.trim() };
const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
let ccm: { stop(): Promise<number | null> } | undefined;
try {
  const started = await startCCM('wasm_ccm', {
    info: cp.info,
    cloud,
    flags: FLAGS,
    name: 'rss-phases',
    main: values['ccm-build'] === 'dist' ? CCM_MAIN_COMPILED : CCM_MAIN,
    nodeArgs,
    env: ccmEnv,
  });
  ccm = started;
  const { pid } = started;
  const watch = await warmUp(admin, cloud, RUN_LABEL);
  const idleThreads = memoryStats(pid).threads;
  await phase('idle', pid, reportDir);

  const burst = names('burst', NODES);
  burst.forEach((name) => cloud.addInstance({ name }));
  await createNodes(admin, burst, { [RUN_LABEL]: 'burst' });
  await watch.waitCleared(NODES + 1, 600_000);
  await watch.stop();
  await phase('node-init', pid, reportDir);

  if (SERVICES > 0) {
    cloud.setKnobs({ latencyMs: LATENCY_MS });
    await createServices(admin, names('lb', SERVICES), 'LoadBalancer');
    await waitForIngress(admin, SERVICES, 900_000, 'wasm-ccm');
    cloud.setKnobs({ latencyMs: 0 });
    await phase('service-lb', pid, reportDir);
    if (values['shrink-wait']) {
      const t = performance.now();
      while (memoryStats(pid).threads > idleThreads && performance.now() - t < 180_000) await sleep(1000);
      await sleep(2000);
      await phase(`shrunk (${((performance.now() - t) / 1000).toFixed(0)} s)`, pid, reportDir);
    }
  }

  await fillSteady(
    admin,
    cloud,
    RUN_LABEL,
    { nodes: STEADY_NODES, services: STEADY_SERVICES },
    { nodes: NODES, services: SERVICES },
  );
  await sleep(SETTLE_MS);
  await phase('steady', pid, reportDir);
  if (snapshotDir) {
    const path = await takeHeapSnapshot(pid, snapshotDir);
    if (path) console.log(`heap snapshot: ${path}`);
  }
} finally {
  await ccm?.stop().catch(() => undefined);
  await cloud.stop().catch(() => undefined);
  await cp.stop().catch(() => undefined);
}
