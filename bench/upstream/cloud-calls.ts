// Cloud API requests of wasm-ccm and of the upstream CCM on the same scenarios, read from the cloud's own records:
// devcloud's request counters (upstream: k8s.io/cloud-provider with lab/peers/devcloud-go) and moto's request log
// (upstream: cloud-provider-aws; wasm-ccm: plugins/aws). Per cloud, rounds alternate which CCM goes first, each a
// fresh CCM on one control plane (bench/lib/burst-round.ts, as bench:node-init-cpu):
//   a. burst initialization: N tainted Ready Nodes at once, counted from the burst until the cloud is quiet again;
//   b. one node-status-update period over those N Nodes (--node-status-update-frequency short on both): the next pass;
//   c. a NotReady storm: 100 of them NotReady, counted for 60 s (--node-monitor-period=5s on both).
// b and c run in the first round only; every round gives the burst's node-init CPU per node (interleaved, as
// bench:node-init-cpu) and its taint-removal p50/p99. Results: bench/results/cloud-calls.{json,md}.
//
// Usage: npm run bench:cloud-calls -- [--full] [--nodes=200] [--moto-nodes=100] [--rounds=3] [--clouds=devcloud,moto]
//   [--storm-nodes=100] [--storm-seconds=60] [--status-frequency-s=90] [--out=bench/results/cloud-calls]
//   --full: the sizes, 1,000 nodes on devcloud and --moto-nodes on moto (default then 500), and a status
//   period of 300 s unless given (cloud-provider-aws takes ~150 s to initialize 500 nodes on moto)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type Devcloud, startDevcloud } from '../../devcloud/src/index.ts';
import { KubeClient } from '../../host/src/kube/client/client.ts';
import { CCM_MAIN_COMPILED, IMAGE_NODE_ARGS } from '../../lab/ccm/index.ts';
import { ControlPlane, adminKubeConfig } from '../../lab/controlplane/index.ts';
import { cloudCallsTable, formatTable, loadNow, percentile, writeResults } from '../../lab/measure/index.ts';
import { burstRound } from '../lib/burst-round.ts';
import { type Impl, benchFlags } from '../lib/start-ccm.ts';
import { type CloudName, type CloudRun, type RunSpec, devcloudRun, motoRun } from './cloud-calls/clouds.ts';
import { type CloudSummary, type RunOutcome, type ScenarioSizes, cloudSummary } from './cloud-calls/report.ts';
import { type Counted, QUIET_MS, notReadyStorm, statusPass, waitQuiet } from './cloud-calls/scenarios.ts';

const { values } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    nodes: { type: 'string' },
    'moto-nodes': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    clouds: { type: 'string', default: 'devcloud,moto' },
    'storm-nodes': { type: 'string', default: '100' },
    'storm-seconds': { type: 'string', default: '60' },
    'status-frequency-s': { type: 'string' },
    out: { type: 'string', default: new URL('../results/cloud-calls', import.meta.url).pathname },
  },
});

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got "${raw}"`);
  return n;
}

const NODES = positive('nodes', values.nodes, values.full ? 1000 : 200);
const MOTO_NODES = positive('moto-nodes', values['moto-nodes'], values.full ? 500 : 100);
const ROUNDS = positive('rounds', values.rounds, 3);
const STORM_NODES = positive('storm-nodes', values['storm-nodes'], 100);
const STORM_MS = positive('storm-seconds', values['storm-seconds'], 60) * 1000;
const PERIOD_S = positive('status-frequency-s', values['status-frequency-s'], values.full ? 300 : 90);
const CLOUDS = values.clouds.split(',').map((c): CloudName => {
  if (c !== 'devcloud' && c !== 'moto') throw new Error(`--clouds: devcloud and/or moto, got "${c}"`);
  return c;
});
// The storm's window must end before the status pass after the one counted (wasm-ccm times its passes from their
// start; upstream from their end, later): the pass, a quiet stretch, the storm, and margin.
if (STORM_MS + QUIET_MS + 10_000 >= PERIOD_S * 1000) {
  throw new Error(`--status-frequency-s=${PERIOD_S}: must exceed the storm's ${STORM_MS / 1000} s by 13 s or more`);
}
// bench:compare's flags, the status update short, the monitor period upstream's default, stated.
const FLAGS = [...benchFlags(), `--node-status-update-frequency=${PERIOD_S}s`, '--node-monitor-period=5s'];

// How early a CCM's next status pass may come against our reading of the last one's start (polled every 250 ms).
const MARGIN_MS = 2_000;

interface Env {
  cp: ControlPlane;
  admin: KubeClient;
  devcloud: Devcloud;
}

function log(cloud: CloudName, impl: Impl, round: number, msg: string): void {
  console.log(`  [${cloud} r${round + 1} ${impl}] ${msg}`);
}

/** One CCM's run on `cloud`: the burst, and in round 0 the status pass and the storm after it. */
async function oneRun(env: Env, cloud: CloudName, impl: Impl, round: number, index: number): Promise<RunOutcome> {
  const nodes = cloud === 'devcloud' ? NODES : MOTO_NODES;
  const spec: RunSpec = {
    info: env.cp.info,
    impl,
    label: `calls-${cloud}-r${round}-${impl === 'upstream' ? 'up' : 'wasm'}`,
    index,
    flags: FLAGS,
    main: CCM_MAIN_COMPILED,
    nodeArgs: [...IMAGE_NODE_ARGS],
  };
  const run: CloudRun<unknown> =
    cloud === 'devcloud' ? (devcloudRun(env.devcloud, spec) as CloudRun<unknown>) : await motoRun(spec);
  try {
    let startedAt = 0;
    let before: unknown;
    const counted: { burst?: Record<string, number>; status?: Counted & { startedAt: number }; storm?: Counted } = {};
    const target = {
      ...run.target,
      start: async () => {
        const ccm = await run.target.start();
        startedAt = performance.now();
        return ccm;
      },
    };
    const result = await burstRound(env.admin, target, spec.label, nodes, {
      beforeBurst: async () => {
        before = run.mark();
      },
      afterBurst: async ({ nodes: names }) => {
        const after = await waitQuiet(run, 120_000, 'after the burst');
        const sinceStart = secs(performance.now() - startedAt);
        counted.burst = run.between(before, after);
        if (performance.now() - startedAt >= PERIOD_S * 1000 - MARGIN_MS) {
          throw new Error(
            `the burst, quiet ${sinceStart} after the CCM started, outlasted --status-frequency-s=${PERIOD_S} ` +
              `(its requests: ${JSON.stringify(counted.burst)})`,
          );
        }
        log(cloud, impl, round, `burst: ${sum(counted.burst)} requests, quiet ${sinceStart} after the start`);
        if (round > 0) return;
        counted.status = await statusPass(run, PERIOD_S * 1000);
        log(cloud, impl, round, `status pass: ${sum(counted.status.requests)} requests in ${secs(counted.status.ms)}`);
        counted.storm = await notReadyStorm(env.admin, run, names.slice(0, STORM_NODES), STORM_MS);
        log(cloud, impl, round, `NotReady storm: ${sum(counted.storm.requests)} requests`);
        if (performance.now() - counted.status.startedAt >= PERIOD_S * 1000 - MARGIN_MS) {
          throw new Error(`the storm's window reached the next status pass: raise --status-frequency-s=${PERIOD_S}`);
        }
      },
    });
    if (counted.burst === undefined) throw new Error(`${cloud} ${impl}: the burst was not counted`);
    const p = (q: number) => secs(percentile(result.latenciesMs, q));
    log(
      cloud,
      impl,
      round,
      `CPU ${((result.cpuSeconds / nodes) * 1000).toFixed(2)} ms/node, p50 ${p(50)}, p99 ${p(99)}`,
    );
    return { impl, round, ...result, burst: counted.burst, status: counted.status, storm: counted.storm };
  } finally {
    await run.close();
  }
}

const sum = (byOp: Record<string, number>): number => Object.values(byOp).reduce((a, b) => a + b, 0);
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function runCloud(env: Env, cloud: CloudName): Promise<CloudSummary> {
  const runs: RunOutcome[] = [];
  let index = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order: Impl[] = round % 2 === 0 ? ['upstream', 'wasm_ccm'] : ['wasm_ccm', 'upstream'];
    for (const impl of order) runs.push(await oneRun(env, cloud, impl, round, index++));
  }
  const sizes: ScenarioSizes = {
    nodes: cloud === 'devcloud' ? NODES : MOTO_NODES,
    stormNodes: Math.min(STORM_NODES, cloud === 'devcloud' ? NODES : MOTO_NODES),
    stormSeconds: STORM_MS / 1000,
    statusFrequencySeconds: PERIOD_S,
  };
  return cloudSummary(cloud, sizes, runs);
}

function cpuTable(summaries: readonly CloudSummary[]): string {
  return formatTable(
    ['cloud', 'node-init CPU ms/node upstream', 'wasm-ccm', 'ratio (median)', 'p50/p99 s upstream', 'wasm-ccm'],
    summaries.map((s) => [
      s.cloud,
      s.node_init_cpu.upstream_ms_per_node.toFixed(2),
      s.node_init_cpu.wasm_ccm_ms_per_node.toFixed(2),
      s.node_init_cpu.ratio_median.toFixed(3),
      `${s.upstream.taint_removal_p50_s} / ${s.upstream.taint_removal_p99_s}`,
      `${s.wasm_ccm.taint_removal_p50_s} / ${s.wasm_ccm.taint_removal_p99_s}`,
    ]),
  );
}

async function main(): Promise<void> {
  console.log('building dist/ (npm run build)');
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const loadBefore = loadNow();
  const started = performance.now();
  const cp = await ControlPlane.start({ apiserverFlags: ['--max-requests-inflight=800'] });
  const devcloud = await startDevcloud({ token: 'compare-token' });
  const admin = new KubeClient(adminKubeConfig(cp.info), { qps: 1_000_000, burst: 1_000_000, userAgent: 'bench' });
  const summaries: CloudSummary[] = [];
  try {
    for (const cloud of CLOUDS) {
      console.log(`${cloud}: ${ROUNDS} rounds, ${cloud === 'devcloud' ? NODES : MOTO_NODES} nodes per burst`);
      summaries.push(await runCloud({ cp, admin, devcloud }, cloud));
    }
  } finally {
    await cp.stop();
    await devcloud.stop();
  }
  const table = cloudCallsTable(
    summaries.flatMap((s) =>
      s.scenarios.map((r) => ({
        scenario: r.scenario,
        cloud: s.cloud,
        upstream: r.upstream_requests,
        wasmCcm: r.wasm_ccm_requests,
      })),
    ),
  );
  const cpu = cpuTable(summaries);
  console.log(`\n${table}\n\n${cpu}`);
  writeResults(`${values.out}.json`, 'cloud-calls', loadBefore, {
    description:
      "cloud API requests of both CCMs from the cloud's own records, node-init CPU per node interleaved, taint-removal latency (bench/upstream/cloud-calls.ts)",
    flags: FLAGS,
    rounds: ROUNDS,
    wall_s: Math.round((performance.now() - started) / 1000),
    clouds: summaries,
  });
  writeFileSync(`${values.out}.md`, `# bench:cloud-calls\n\n\`\`\`text\n${table}\n\n${cpu}\n\`\`\`\n`);
  process.exit(0);
}

await main();
